#!/usr/bin/env bash
# Reproduce the two round-45 (B) corpora from the sdists in ./sdists.
#   python-gitlab 8.6.0  -> $CORPORA/python-gitlab-8.6.0-r45
#   minimalmodbus 2.1.1  -> $CORPORA/minimalmodbus-2.1.1-r45
# Layout: package under src/ (tests removed), docs pages (.rst/.md, sub-folders
# kept) under docs/ without conf.py, Sphinx extensions, static files or build
# files, and README / PKG-INFO / pyproject.toml at the root.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-/work/round45/B/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# copy_docs SRC_DOCS DEST_DOCS: keep only .rst and .md pages, with sub-folders,
# never conf.py (not a page anyway).
copy_docs() {
    local src="$1" dest="$2"
    (cd "$src" && find . -type f \( -name '*.rst' -o -name '*.md' \) \
        -not -path './_build/*' -not -path './_static/*' -not -path './_templates/*' \
        -not -path './ext/*' | sort) |
    while read -r rel; do
        mkdir -p "$dest/$(dirname "$rel")"
        cp "$src/$rel" "$dest/$rel"
    done
}

# ---------------------------------------------------------------- python-gitlab
tar -xzf "$SDISTS/python_gitlab-8.6.0.tar.gz" -C "$TMP"
SRC="$TMP/python_gitlab-8.6.0"
DEST="$CORPORA/python-gitlab-8.6.0-r45"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
cp -r "$SRC/gitlab" "$DEST/src/gitlab"
find "$DEST/src" -type d \( -name tests -o -name __pycache__ \) -prune -exec rm -rf {} +
copy_docs "$SRC/docs" "$DEST/docs"
cp "$SRC/README.rst" "$SRC/PKG-INFO" "$SRC/pyproject.toml" "$DEST/"

# ---------------------------------------------------------------- minimalmodbus
tar -xzf "$SDISTS/minimalmodbus-2.1.1.tar.gz" -C "$TMP"
SRC="$TMP/minimalmodbus-2.1.1"
DEST="$CORPORA/minimalmodbus-2.1.1-r45"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
# Single-module distribution: the import name is the module minimalmodbus.py.
cp "$SRC/minimalmodbus.py" "$DEST/src/minimalmodbus.py"
copy_docs "$SRC/docs" "$DEST/docs"
cp "$SRC/README.rst" "$SRC/PKG-INFO" "$SRC/pyproject.toml" "$DEST/"

echo "built: $CORPORA/python-gitlab-8.6.0-r45 $CORPORA/minimalmodbus-2.1.1-r45"
