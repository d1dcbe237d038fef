#!/usr/bin/env bash
# Reproduce the two round-44 corpora from the sdists in this folder:
#   /work/devsuite-corpora/jira-3.10.5-r44     (from sdists/jira-3.10.5.tar.gz)
#   /work/devsuite-corpora/aiohttp-3.14.5-r44  (from sdists/aiohttp-3.14.5.tar.gz)
# Layout: package under src/<import name>/ (tests removed), docs pages under docs/
# (sub-folders kept; conf.py, images, static files and build tooling dropped),
# README / PKG-INFO / pyproject.toml at the root.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-/work/round44/A/sdists}"   # jira-3.10.5.tar.gz, aiohttp-3.14.5.tar.gz
OUT="${CORPORA:-${DEVSUITES_CORPORA:-/work/devsuite-corpora}}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

copy_docs() {  # copy_docs SRC_DOCS DEST_DOCS: keep .rst/.md pages and example .py files
  local from="$1" to="$2"
  (cd "$from" && find . -type f \( -name '*.rst' -o -name '*.md' -o -name '*.py' \) \
       ! -path './conf.py' ! -path './_static/*' ! -path './_build/*' ! -path './_templates/*' -print0) |
    while IFS= read -r -d '' f; do
      mkdir -p "$to/$(dirname "$f")"
      cp -p "$from/$f" "$to/$f"
    done
}

# ---- jira 3.10.5 (flat layout: jira/ at the sdist root) ----
tar -xzf "$SDISTS/jira-3.10.5.tar.gz" -C "$TMP"
S="$TMP/jira-3.10.5"; D="$OUT/jira-3.10.5-r44"
rm -rf "$D"; mkdir -p "$D/src" "$D/docs"
cp -a "$S/jira" "$D/src/jira"
find "$D/src" -type d \( -name tests -o -name __pycache__ \) -prune -exec rm -rf {} +
copy_docs "$S/docs" "$D/docs"          # drops conf.py and docs/extra/jira.xml
cp -p "$S/README.rst" "$S/PKG-INFO" "$S/pyproject.toml" "$D/"

# ---- aiohttp 3.14.5 (flat layout: aiohttp/ at the sdist root) ----
tar -xzf "$SDISTS/aiohttp-3.14.5.tar.gz" -C "$TMP"
S="$TMP/aiohttp-3.14.5"; D="$OUT/aiohttp-3.14.5-r44"
rm -rf "$D"; mkdir -p "$D/src" "$D/docs"
cp -a "$S/aiohttp" "$D/src/aiohttp"
find "$D/src" -type d \( -name tests -o -name __pycache__ \) -prune -exec rm -rf {} +
# Cython/generator output (C sources and headers) is build output, not package source.
find "$D/src/aiohttp" -type f \( -name '*.c' -o -name '*.h' \) -delete
copy_docs "$S/docs" "$D/docs"          # keeps docs/*.rst, docs/threat_model.md, docs/code/*.py
cp -p "$S/README.rst" "$S/PKG-INFO" "$S/pyproject.toml" "$D/"

echo "laid out: $OUT/jira-3.10.5-r44 $OUT/aiohttp-3.14.5-r44"
