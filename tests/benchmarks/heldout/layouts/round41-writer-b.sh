#!/usr/bin/env bash
# Lay out the two round-41 (writer B) corpora from their PyPI sdists.
#
#   SDISTS   folder holding the sdists   (default: the sdists/ folder beside this script)
#   CORPORA  folder to write corpora to  (default: /work/devsuite-corpora)
#
# Produces $CORPORA/mongoengine-0.29.3-r41 and $CORPORA/pyvisa-1.16.2-r41:
#   src/<import name>/   the package, tests removed
#   docs/                the documentation pages (.rst/.md, sub-folders kept;
#                        conf.py, images, Makefiles, requirements dropped)
#   README.rst, PKG-INFO, pyproject.toml / setup.py / setup.cfg at the root.
# Rerunning it rebuilds both folders from scratch, byte for byte the same.
# The sdists were fetched with
#   pip download --no-deps --no-binary :all: mongoengine==0.29.3 -d sdists
#   pip download --no-deps --no-binary :all: pyvisa==1.16.2 -d sdists
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
export LC_ALL=C

mkdir -p "$CORPORA"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

check_sha() {  # file expected-sha256
    local got
    got="$(sha256sum "$1" | cut -d' ' -f1)"
    if [ "$got" != "$2" ]; then
        echo "LAYOUT.sh: $1 has sha256 $got, expected $2" >&2
        exit 1
    fi
}

# copy_docs SRC_DOCS DEST_DOCS: keep .rst/.md pages (and example .py files),
# with their sub-folders; drop conf.py, _static/_build/_templates, images etc.
copy_docs() {
    local from="$1" to="$2" rel
    (cd "$from" && find . -type f \( -name '*.rst' -o -name '*.md' -o -name '*.py' \) \
        ! -name conf.py ! -path '*/_static/*' ! -path '*/_build/*' \
        ! -path '*/_templates/*' ! -path './build/*' | sort) |
    while IFS= read -r rel; do
        rel="${rel#./}"
        mkdir -p "$to/$(dirname "$rel")"
        cp -p "$from/$rel" "$to/$rel"
    done
}

# ---------------------------------------------------------------- mongoengine
NAME=mongoengine-0.29.3
TARBALL="$SDISTS/$NAME.tar.gz"
check_sha "$TARBALL" 4267702aea433012845cb12b6334bff86a0a3084b5d141c1e4553ea20374a9b4
tar -xzf "$TARBALL" -C "$WORK"
U="$WORK/$NAME"
OUT="$CORPORA/$NAME-r41"
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/docs"
cp -pR "$U/mongoengine" "$OUT/src/mongoengine"          # tests/ live at the root: not copied
copy_docs "$U/docs" "$OUT/docs"                          # docs/*.rst, docs/guide/*.rst, docs/code/tumblelog.py
for f in README.rst PKG-INFO setup.py setup.cfg; do cp -p "$U/$f" "$OUT/$f"; done
# setup.py uses find_packages() with no where= and declares no package_dir,
# so there is no package-directory setting to point at src/; left unchanged.

# --------------------------------------------------------------------- pyvisa
NAME=pyvisa-1.16.2
TARBALL="$SDISTS/$NAME.tar.gz"
check_sha "$TARBALL" 75beb93eeafe20a50be5726fa4e3a645948c93d86819f9c1f8c542efa4085a38
tar -xzf "$TARBALL" -C "$WORK"
U="$WORK/$NAME"
OUT="$CORPORA/$NAME-r41"
rm -rf "$OUT"
mkdir -p "$OUT/src" "$OUT/docs"
cp -pR "$U/pyvisa" "$OUT/src/pyvisa"
rm -rf "$OUT/src/pyvisa/testsuite"                       # the package's own tests
copy_docs "$U/docs" "$OUT/docs"                          # docs/source/**.rst (conf.py, logo dropped)
for f in README.rst PKG-INFO pyproject.toml setup.cfg; do cp -p "$U/$f" "$OUT/$f"; done
# pyproject.toml declares no package directory (setuptools auto-discovery);
# the setuptools_scm target "pyvisa/version.py" is a file path, left unchanged
# (src/pyvisa/version.py ships in the sdist already).

find "$CORPORA/mongoengine-0.29.3-r41" "$CORPORA/pyvisa-1.16.2-r41" -name '__pycache__' -prune -exec rm -rf {} +
echo "laid out: $CORPORA/mongoengine-0.29.3-r41 $CORPORA/pyvisa-1.16.2-r41"
