#!/usr/bin/env bash
# Rebuild the two round-39 (writer A) corpora from their PyPI sdists.
#   SDISTS   folder holding gspread-6.2.1.tar.gz and limits-5.8.0.tar.gz (default ./sdists)
#   CORPORA  where the corpora are written (default /work/devsuite-corpora)
# Result: $CORPORA/gspread-6.2.1-r39 and $CORPORA/limits-5.8.0-r39, each with
#   src/<import name>/  (package, no tests)
#   docs/               (documentation pages only, sub-folders kept; no conf.py,
#                        images, static assets, templates or build output)
#   README*, PKG-INFO, pyproject.toml at the root
set -euo pipefail

SDISTS="${SDISTS:-./sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
SDISTS="$(cd "$SDISTS" && pwd)"
mkdir -p "$CORPORA"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# copy_pages SRC_DOCS DEST_DOCS: copy .rst/.md pages, keeping sub-folders,
# skipping conf.py, _static/_templates/_build and Sphinx extension folders.
copy_pages() {
    local from="$1" to="$2"
    (cd "$from" && find . -type f \( -name '*.rst' -o -name '*.md' \) \
        -not -path '*/_static/*' -not -path '*/_templates/*' \
        -not -path '*/_build/*' -not -path './ext/*' | sort) |
    while read -r rel; do
        mkdir -p "$to/$(dirname "$rel")"
        cp "$from/$rel" "$to/$rel"
    done
}

strip_tests() {
    find "$1" -depth -type d \( -name tests -o -name test -o -name __pycache__ \) -exec rm -rf {} +
    find "$1" -type f \( -name 'test_*.py' -o -name '*_test.py' -o -name 'conftest.py' \) -delete
}

# ---------------------------------------------------------------- gspread
name=gspread-6.2.1
out="$CORPORA/$name-r39"
rm -rf "$out"
tar -xzf "$SDISTS/$name.tar.gz" -C "$tmp"
mkdir -p "$out/src" "$out/docs"
cp -r "$tmp/$name/gspread" "$out/src/gspread"
strip_tests "$out/src"
copy_pages "$tmp/$name/docs" "$out/docs"
cp "$tmp/$name/README.md" "$tmp/$name/PKG-INFO" "$tmp/$name/pyproject.toml" "$out/"
# pyproject: flit_core finds the module in src/ by itself and names no
# package folder; nothing to adjust.

# ---------------------------------------------------------------- limits
name=limits-5.8.0
out="$CORPORA/$name-r39"
rm -rf "$out"
tar -xzf "$SDISTS/$name.tar.gz" -C "$tmp"
mkdir -p "$out/src" "$out/docs"
cp -r "$tmp/$name/limits" "$out/src/limits"
strip_tests "$out/src"
# Sphinx sources live in doc/source/; they become docs/ (ext/ is a Sphinx
# extension with JS/CSS assets, _static is assets: both dropped).
copy_pages "$tmp/$name/doc/source" "$out/docs"
cp "$tmp/$name/README.rst" "$tmp/$name/PKG-INFO" "$tmp/$name/pyproject.toml" "$out/"
# hatch names the package folder: point it at the moved folder.
sed -i \
    -e 's|^packages = \["limits"\]|packages = ["src/limits"]|' \
    -e 's|^version-file = "limits/_version.py"|version-file = "src/limits/_version.py"|' \
    "$out/pyproject.toml"
grep -q '^packages = \["src/limits"\]' "$out/pyproject.toml"
grep -q '^version-file = "src/limits/_version.py"' "$out/pyproject.toml"

echo "wrote $CORPORA/gspread-6.2.1-r39 and $CORPORA/limits-5.8.0-r39"
