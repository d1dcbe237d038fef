#!/usr/bin/env bash
# Reproduce the two round-38 writer-B corpora from their PyPI sdists.
#
#   netaddr 1.3.0 -> /work/devsuite-corpora/netaddr-1.3.0-r38
#   wand 0.7.2    -> /work/devsuite-corpora/wand-0.7.2-r38
#
# Sdists were fetched with
#   python -m pip download --no-deps --no-binary :all: netaddr==1.3.0 -d sdists
#   python -m pip download --no-deps --no-binary :all: wand==0.7.2 -d sdists
# and are expected in ./sdists next to this script (override with SDISTS=...).
# Output base can be overridden with CORPORA=...
#
# Layout (dev-suites corpus policy):
#   src/<import name>/   the package, tests removed (package data files kept)
#   docs/...             the Sphinx .rst pages only, sub-folders kept
#                        (conf.py, Makefiles, themes, templates, css, lock and
#                        requirement files dropped)
#   README.rst, PKG-INFO, pyproject.toml (+ LICENSE for wand, which
#   pyproject's license-files names) at the root; everything else dropped.
# pyproject.toml: setuptools package discovery pointed at src/.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"

unpack() {  # $1 = sdist base name (NAME-VERSION); prints a temp dir holding it
    local tmp
    tmp="$(mktemp -d)"
    tar -xzf "$SDISTS/$1.tar.gz" -C "$tmp"
    echo "$tmp/$1"
}

keep_docs() {  # $1 = unpacked docs dir, $2 = target docs dir: copy *.rst, keep sub-folders
    local from="$1" to="$2"
    (cd "$from" && find . -type f -name '*.rst' \
        ! -path './_build/*' ! -path './_themes/*' ! -path './_templates/*' ! -path './_static/*' \
        -print) | sort | while read -r rel; do
        mkdir -p "$to/$(dirname "$rel")"
        cp -p "$from/$rel" "$to/$rel"
    done
}

# ---------------------------------------------------------------- netaddr
NA=netaddr-1.3.0
src="$(unpack "$NA")"
dst="$CORPORA/$NA-r38"
rm -rf "$dst"
mkdir -p "$dst/src" "$dst/docs"
cp -a "$src/netaddr" "$dst/src/netaddr"
rm -rf "$dst/src/netaddr/tests"
find "$dst/src" -name '__pycache__' -type d -prune -exec rm -rf {} +
# Sphinx source lives in docs/source/; keep that sub-folder as shipped.
keep_docs "$src/docs" "$dst/docs"
cp -p "$src/README.rst" "$src/PKG-INFO" "$src/pyproject.toml" "$dst/"
# [tool.setuptools.packages.find] where = ["."]  ->  where = ["src"]
python3 - "$dst/pyproject.toml" <<'PY'
import sys, pathlib
p = pathlib.Path(sys.argv[1])
t = p.read_text(encoding="utf-8")
old = '[tool.setuptools.packages.find]\nwhere = ["."]\n'
assert t.count(old) == 1, "netaddr pyproject: packages.find block not found"
p.write_text(t.replace(old, '[tool.setuptools.packages.find]\nwhere = ["src"]\n'), encoding="utf-8")
PY
rm -rf "$(dirname "$src")"

# ---------------------------------------------------------------- wand
WA=wand-0.7.2
src="$(unpack "$WA")"
dst="$CORPORA/$WA-r38"
rm -rf "$dst"
mkdir -p "$dst/src" "$dst/docs"
cp -a "$src/wand" "$dst/src/wand"          # tests/ sits at the sdist root: not copied
find "$dst/src" -name '__pycache__' -type d -prune -exec rm -rf {} +
keep_docs "$src/docs" "$dst/docs"
cp -p "$src/README.rst" "$src/PKG-INFO" "$src/pyproject.toml" "$src/LICENSE" "$dst/"
# [tool.setuptools.packages.find] has no `where` (defaults to "."): add where = ["src"].
# (setup.py, which repeats find_packages() and imports wand.version from ".", is dropped.)
python3 - "$dst/pyproject.toml" <<'PY'
import sys, pathlib
p = pathlib.Path(sys.argv[1])
t = p.read_text(encoding="utf-8")
old = '[tool.setuptools.packages.find]\ninclude = ["wand", "wand.cdefs"]\n'
assert t.count(old) == 1, "wand pyproject: packages.find block not found"
p.write_text(t.replace(old, '[tool.setuptools.packages.find]\nwhere = ["src"]\ninclude = ["wand", "wand.cdefs"]\n'), encoding="utf-8")
PY
rm -rf "$(dirname "$src")"

echo "built $CORPORA/$NA-r38 and $CORPORA/$WA-r38"
