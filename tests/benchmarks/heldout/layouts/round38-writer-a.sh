#!/usr/bin/env bash
# Reproduce the two round-38 writer-A corpora from the sdists in ./sdists:
#   /work/devsuite-corpora/dataset-2.0.0-r38
#   /work/devsuite-corpora/mutagen-1.48.1-r38
# Layout (dev-suites corpus policy): package under src/<import name>/ (tests
# removed), docs pages under docs/ (sub-folders kept; conf.py, images, static
# files, Makefiles and doc-build helpers dropped), README / PKG-INFO /
# pyproject.toml at the root. Both sdists are flat (package at the root), so
# the package is moved under src/ and the pyproject settings that name the
# package folder are adjusted to point at src/.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
OUT="${CORPORA:-/work/devsuite-corpora}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$OUT"

# ---------------------------------------------------------------- dataset
NAME=dataset-2.0.0
DEST="$OUT/$NAME-r38"
tar -xzf "$SDISTS/$NAME.tar.gz" -C "$TMP"
S="$TMP/$NAME"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
cp -r "$S/dataset" "$DEST/src/dataset"                 # package (tests live in test/, not copied)
cp "$S/docs/"*.rst "$DEST/docs/"                         # index, install, quickstart, api, queries
cp "$S/README.md" "$S/PKG-INFO" "$S/pyproject.toml" "$DEST/"
# hatch names the package folder twice: the version file and the wheel package.
sed -i \
  -e 's|^path = "dataset/__init__.py"|path = "src/dataset/__init__.py"|' \
  -e 's|^packages = \["dataset"\]|packages = ["src/dataset"]|' \
  "$DEST/pyproject.toml"
grep -q '^path = "src/dataset/__init__.py"' "$DEST/pyproject.toml"
grep -q '^packages = \["src/dataset"\]' "$DEST/pyproject.toml"

# ---------------------------------------------------------------- mutagen
NAME=mutagen-1.48.1
DEST="$OUT/$NAME-r38"
tar -xzf "$SDISTS/$NAME.tar.gz" -C "$TMP"
S="$TMP/$NAME"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
cp -r "$S/mutagen" "$DEST/src/mutagen"                 # package (tests live in tests/, not copied)
find "$DEST/src" -name '__pycache__' -prune -exec rm -rf {} +
# docs pages with their sub-folders (api/, dev/, man/, user/, user/examples/);
# drop conf.py, the id3_frames_gen.py build helper, extra.css, Makefiles, images/.
(cd "$S/docs" && find . -type f \( -name '*.rst' -o -path './user/examples/*.py' \) -print0) |
  while IFS= read -r -d '' f; do
    mkdir -p "$DEST/docs/$(dirname "$f")"
    cp "$S/docs/$f" "$DEST/docs/$f"
  done
cp "$S/README.rst" "$S/PKG-INFO" "$S/pyproject.toml" "$DEST/"
# setuptools lists the packages by dotted name; point it at the moved folder.
sed -i 's|^\[tool.setuptools\]$|[tool.setuptools]\npackage-dir = {"" = "src"}|' "$DEST/pyproject.toml"
grep -q '^package-dir = {"" = "src"}' "$DEST/pyproject.toml"

echo "laid out:"
for d in "$OUT/dataset-2.0.0-r38" "$OUT/mutagen-1.48.1-r38"; do
  echo "  $d ($(find "$d" -type f | wc -l) files)"
done
