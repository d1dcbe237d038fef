#!/usr/bin/env bash
# Reproduce the two round-39 writer-B corpora from their PyPI sdists.
#   SDISTS  folder holding segno-1.6.6.tar.gz and pyquery-2.0.1.tar.gz (default ./sdists)
#   CORPORA folder the corpora are written under (default /work/devsuite-corpora)
set -euo pipefail
SDISTS="${SDISTS:-./sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
SDISTS="$(cd "$SDISTS" && pwd)"
mkdir -p "$CORPORA"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# lay_out NAME VERSION IMPORT_NAME ROOT_FILES...
lay_out() {
  local name="$1" version="$2" import="$3"; shift 3
  local src="$TMP/$name-$version" dest="$CORPORA/$name-$version-r39"
  tar -xzf "$SDISTS/$name-$version.tar.gz" -C "$TMP"
  rm -rf "$dest"
  mkdir -p "$dest/src" "$dest/docs"
  # package -> src/<import name>/ (tests are outside the package folder in both sdists)
  cp -a "$src/$import" "$dest/src/$import"
  find "$dest/src" -name '__pycache__' -prune -exec rm -rf {} +
  # documentation pages only (.rst/.md), keeping sub-folders; no conf.py, images, build files
  (cd "$src/docs" && find . -type f \( -name '*.rst' -o -name '*.md' \) \
       ! -path './_build/*' ! -path './_static/*' ! -path './_templates/*' -print0 |
     while IFS= read -r -d '' f; do
       mkdir -p "$dest/docs/$(dirname "$f")"
       cp -a "$f" "$dest/docs/$f"
     done)
  # README / PKG-INFO / build metadata at the root
  local f
  for f in "$@"; do
    [ -e "$src/$f" ] && cp -a "$src/$f" "$dest/$f"
  done
  echo "laid out $dest"
}

# segno 1.6.6: flit backend, module found by name (flit also looks under src/);
# pyproject names no package folder, so nothing to adjust there.
lay_out segno 1.6.6 segno README.rst PKG-INFO pyproject.toml

# pyquery 2.0.1: setuptools; setup.cfg only holds [egg_info] (no package folder setting).
# setup.py (find_packages at the root) is not copied: the corpus keeps README/PKG-INFO/setup.cfg.
lay_out pyquery 2.0.1 pyquery README.rst PKG-INFO setup.cfg
