#!/usr/bin/env bash
# Reproduce the two round-42 writer-A corpora from their PyPI sdists.
#
#   SDISTS   folder holding the sdists (default: the sdists/ folder next to this script)
#   CORPORA  folder the corpora are written into (default: /work/devsuite-corpora)
#
# Produces $CORPORA/factory_boy-3.3.3-r42 and $CORPORA/dateparser-1.5.0-r42:
#   src/<import name>/   the package(s), tests removed
#   docs/                the Sphinx .rst pages (sub-folders kept; conf.py, Makefile,
#                        make.bat, images, _static and spelling word lists dropped)
#   README / PKG-INFO / pyproject.toml / setup.cfg / setup.py / LICENSE at the root
# and points the packaging's package directory at src/.
# Sdists were fetched with
#   pip download --no-deps --no-binary :all: factory-boy==3.3.3 dateparser==1.5.0
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
PY="$(command -v python3)"

mkdir -p "$CORPORA"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# copy_docs SRC_DOCS DEST_DOCS: documentation pages only, keeping sub-folders.
copy_docs() {
    local from="$1" to="$2"
    (cd "$from" && find . -type f \( -name '*.rst' -o -name '*.md' -o -name '*.txt' \) \
        ! -name 'conf.py' ! -name 'spelling_wordlist.txt' ! -path './_build/*' \
        ! -path './_static/*' ! -path './_templates/*' -print | LC_ALL=C sort) |
    while IFS= read -r rel; do
        mkdir -p "$to/$(dirname "$rel")"
        cp -p "$from/$rel" "$to/$rel"
    done
}

# copy_root SRC DEST FILE...: root files that exist in the sdist.
copy_root() {
    local from="$1" to="$2"; shift 2
    local f
    for f in "$@"; do
        if [ -f "$from/$f" ]; then cp -p "$from/$f" "$to/$f"; fi
    done
}

# ---------------------------------------------------------------- factory_boy
NAME=factory_boy-3.3.3
DEST="$CORPORA/$NAME-r42"
tar -xzf "$SDISTS/$NAME.tar.gz" -C "$WORK"
SRC="$WORK/$NAME"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
cp -rp "$SRC/factory" "$DEST/src/factory"
copy_docs "$SRC/docs" "$DEST/docs"
copy_root "$SRC" "$DEST" README.rst PKG-INFO pyproject.toml setup.cfg setup.py LICENSE
# setup.cfg: "packages = factory" -> also declare package_dir = src
"$PY" - "$DEST/setup.cfg" <<'EOF'
import sys
p = sys.argv[1]
text = open(p, encoding="utf-8").read()
old = "packages = factory\n"
assert text.count(old) == 1, "setup.cfg: packages line not found"
text = text.replace(old, "packages = factory\npackage_dir = \n\t=src\n")
open(p, "w", encoding="utf-8").write(text)
EOF
touch -r "$SRC/setup.cfg" "$DEST/setup.cfg"

# ----------------------------------------------------------------- dateparser
NAME=dateparser-1.5.0
DEST="$CORPORA/$NAME-r42"
tar -xzf "$SDISTS/$NAME.tar.gz" -C "$WORK"
SRC="$WORK/$NAME"
rm -rf "$DEST"
mkdir -p "$DEST/src" "$DEST/docs"
# every top-level package that packages.find() installs (tests are excluded there)
for pkg in dateparser dateparser_cli dateparser_data dateparser_scripts; do
    cp -rp "$SRC/$pkg" "$DEST/src/$pkg"
done
copy_docs "$SRC/docs" "$DEST/docs"
# HISTORY.rst is read by setup.py (long_description), so it stays at the root too
copy_root "$SRC" "$DEST" README.rst PKG-INFO pyproject.toml setup.cfg setup.py LICENSE HISTORY.rst
# pyproject.toml: packages.find(where = src) and package-dir = src
"$PY" - "$DEST/pyproject.toml" <<'EOF'
import sys
p = sys.argv[1]
text = open(p, encoding="utf-8").read()
old = "[tool.setuptools]\ninclude-package-data = true\n"
assert text.count(old) == 1, "pyproject: [tool.setuptools] not found"
text = text.replace(old, old + 'package-dir = {"" = "src"}\n')
old = "[tool.setuptools.packages.find]\n"
assert text.count(old) == 1, "pyproject: packages.find not found"
text = text.replace(old, old + 'where = ["src"]\n')
open(p, "w", encoding="utf-8").write(text)
EOF
touch -r "$SRC/pyproject.toml" "$DEST/pyproject.toml"

# Normalise: no stray bytecode, no test folders inside the packages.
find "$CORPORA/factory_boy-3.3.3-r42" "$CORPORA/dateparser-1.5.0-r42" \
    \( -name '__pycache__' -o -name 'tests' -o -name 'test' \) -type d -prune -exec rm -rf {} +
echo "laid out: $CORPORA/factory_boy-3.3.3-r42 $CORPORA/dateparser-1.5.0-r42"
