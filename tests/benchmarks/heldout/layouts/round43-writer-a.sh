#!/bin/sh
# Reproduce the two round-43 (writer A) corpora from their PyPI sdists.
#
#   SDISTS   folder holding automat-25.4.16.tar.gz and logbook-1.10.1.tar.gz
#            (default: /work/round43/A/sdists)
#   CORPORA  folder the corpora are written into (default: /work/devsuite-corpora)
#
# Get the sdists with:
#   python -m pip download --no-deps --no-binary :all: automat==25.4.16 -d "$SDISTS"
#   python -m pip download --no-deps --no-binary :all: logbook==1.10.1 -d "$SDISTS"
#
# Each corpus is rebuilt from scratch (an existing target folder is replaced),
# so rerunning into an empty folder yields identical trees.
#
# Layout per corpus (CORPORA/NAME-VERSION-r43):
#   src/<import name>/    the package, tests removed, no egg-info
#   docs/                 .rst/.md pages with their sub-folders (plus automat's
#                         docs/examples/*.py, which the pages literalinclude);
#                         no conf.py, images, _static, Makefile, requirements
#   README.md, LICENSE, PKG-INFO, pyproject.toml, setup.cfg, setup.py (those present)
#
# Both sdists already use a src/ layout and their pyproject.toml already
# declares it (automat: [tool.setuptools.packages.find] where = ["src"];
# logbook: package-dir = {"" = "src"} and where = ["src"]), so no packaging
# settings need rewriting; the script checks this and stops if it is not so.
set -eu

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
SDISTS=${SDISTS:-$SCRIPT_DIR/sdists}
CORPORA=${CORPORA:-/work/devsuite-corpora}
mkdir -p "$CORPORA"
SDISTS=$(cd "$SDISTS" && pwd)
CORPORA=$(cd "$CORPORA" && pwd)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# copy_root_files SRC DST: the root metadata files that exist
copy_root_files() {
    for f in README.md README.rst README LICENSE LICENSE.txt PKG-INFO pyproject.toml setup.cfg setup.py; do
        if [ -f "$1/$f" ]; then cp -p "$1/$f" "$2/$f"; fi
    done
}

# copy_docs SRC DST: doc pages (.rst/.md/.txt) keeping sub-folders, minus build bits
copy_docs() {
    (cd "$1/docs" && find . -type f \( -name '*.rst' -o -name '*.md' \) \
        ! -path './_build/*' ! -path './_static/*' ! -path './_templates/*' \
        | LC_ALL=C sort) | while read -r rel; do
        mkdir -p "$2/docs/$(dirname "$rel")"
        cp -p "$1/docs/$rel" "$2/docs/$rel"
    done
}

check_src_layout() {
    # $1 = pyproject.toml; the package must already be declared under src/
    grep -Eq '^where *= *\[ *"src" *\]' "$1" || {
        echo "unexpected packaging settings in $1" >&2; exit 1; }
}

# ---------------------------------------------------------------- automat
NAME=automat VERSION=25.4.16
tar -xzf "$SDISTS/$NAME-$VERSION.tar.gz" -C "$WORK"
S="$WORK/$NAME-$VERSION"
D="$CORPORA/$NAME-$VERSION-r43"
rm -rf "$D"; mkdir -p "$D/src"
check_src_layout "$S/pyproject.toml"
cp -pR "$S/src/automat" "$D/src/automat"
rm -rf "$D/src/automat/_test"                      # the package's test suite
copy_docs "$S" "$D"
mkdir -p "$D/docs/examples"                        # literalinclude targets of the pages
cp -p "$S"/docs/examples/*.py "$D/docs/examples/"
copy_root_files "$S" "$D"

# ---------------------------------------------------------------- logbook
NAME=logbook VERSION=1.10.1
tar -xzf "$SDISTS/$NAME-$VERSION.tar.gz" -C "$WORK"
S="$WORK/$NAME-$VERSION"
D="$CORPORA/$NAME-$VERSION-r43"
rm -rf "$D"; mkdir -p "$D/src"
check_src_layout "$S/pyproject.toml"
grep -Eq '^package-dir *= *\{ *"" *= *"src" *\}' "$S/pyproject.toml" || {
    echo "unexpected package-dir in logbook pyproject.toml" >&2; exit 1; }
cp -pR "$S/src/logbook" "$D/src/logbook"           # src/rust (speedups) not copied
find "$D/src" -name '__pycache__' -prune -exec rm -rf {} +
copy_docs "$S" "$D"
copy_root_files "$S" "$D"

# normalise modes so reruns compare equal regardless of umask
find "$CORPORA/automat-25.4.16-r43" "$CORPORA/logbook-1.10.1-r43" -type d -exec chmod 755 {} +
find "$CORPORA/automat-25.4.16-r43" "$CORPORA/logbook-1.10.1-r43" -type f -exec chmod 644 {} +

echo "wrote $CORPORA/automat-25.4.16-r43 and $CORPORA/logbook-1.10.1-r43"
