#!/usr/bin/env bash
# Reproduce the two round-44 (B) corpora from the sdists in ./sdists.
# Usage: bash LAYOUT.sh [CORPORA_DIR]   (default /work/devsuite-corpora)
# The sdists come from:
#   python -m pip download --no-deps --no-binary :all: passlib==1.7.4 -d sdists
#   python -m pip download --no-deps --no-binary :all: python-can==4.6.1 -d sdists
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDISTS="${SDISTS:-/work/round44/B/sdists}"
OUT="${CORPORA:-${1:-/work/devsuite-corpora}}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------- passlib 1.7.4
# sdist: flat layout (passlib/ at the root, tests inside passlib/tests/), docs/.
tar -xzf "$SDISTS/passlib-1.7.4.tar.gz" -C "$TMP"
S="$TMP/passlib-1.7.4"
D="$OUT/passlib-1.7.4-r44"
rm -rf "$D"
mkdir -p "$D/src"
cp -a "$S/passlib" "$D/src/passlib"
rm -rf "$D/src/passlib/tests"                       # tests removed
find "$D/src" -name '__pycache__' -prune -exec rm -rf {} +
cp -a "$S/docs" "$D/docs"
rm -f  "$D/docs/conf.py"                            # sphinx config
rm -rf "$D/docs/_static"                            # logos / images
rm -f  "$D/docs/requirements.txt" "$D/docs/dev-requirements.txt"   # not pages
# README has no extension in this sdist; no pyproject.toml is shipped.
cp -a "$S/README" "$S/PKG-INFO" "$S/LICENSE" "$D/"

# ------------------------------------------------------------ python-can 4.6.1
# sdist: flat layout (can/ at the root), tests in test/, docs in doc/ (singular).
tar -xzf "$SDISTS/python_can-4.6.1.tar.gz" -C "$TMP"
S="$TMP/python_can-4.6.1"
D="$OUT/python-can-4.6.1-r44"
rm -rf "$D"
mkdir -p "$D/src"
cp -a "$S/can" "$D/src/can"
find "$D/src" -name '__pycache__' -prune -exec rm -rf {} +
cp -a "$S/doc" "$D/docs"                            # doc/ renamed to docs/
rm -f  "$D/docs/conf.py"                            # sphinx config
rm -rf "$D/docs/images"                             # screenshots / svgs
rm -f  "$D/docs/pycanlib.pml"                       # not a page (editor project file)
cp -a "$S/README.rst" "$S/PKG-INFO" "$S/pyproject.toml" "$S/LICENSE.txt" "$D/"

echo "laid out: $OUT/passlib-1.7.4-r44 $OUT/python-can-4.6.1-r44"
