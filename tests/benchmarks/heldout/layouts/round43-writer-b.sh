#!/usr/bin/env bash
# Reproduce the two round-43 (writer B) corpora from their PyPI sdists.
#
#   SDISTS   folder holding mechanicalsoup-1.4.0.tar.gz and py-moneyed-3.0.tar.gz
#            (default: the sdists/ folder next to this script)
#   CORPORA  folder the corpora are laid out in (default /work/devsuite-corpora)
#
# Result: $CORPORA/mechanicalsoup-1.4.0-r43 and $CORPORA/py-moneyed-3.0-r43, each with
#   src/<import name>/   the package (tests and egg-info removed)
#   docs/                the documentation pages (.rst/.md, sub-folders kept;
#                        conf.py, conftest.py, Makefile, make.bat, images, build output dropped)
#   README*, PKG-INFO, LICENSE, pyproject.toml, setup.py, setup.cfg at the root (when shipped).
# Rerunning replaces the two corpus folders and gives identical trees (content and mtimes).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
mkdir -p "$CORPORA"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# lay_out SDIST_BASENAME IMPORT_NAME PACKAGE_PATH_IN_SDIST
lay_out() {
    local base="$1" import="$2" pkgpath="$3"
    local tarball="$SDISTS/$base.tar.gz"
    [ -f "$tarball" ] || { echo "missing $tarball" >&2; exit 1; }
    tar -xzf "$tarball" -C "$WORK"
    local from="$WORK/$base"
    local to="$CORPORA/$base-r43"
    rm -rf "$to"
    mkdir -p "$to/src" "$to/docs"

    # package -> src/<import name>/
    cp -a "$from/$pkgpath" "$to/src/$import"
    find "$to/src" \( -name tests -o -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
    find "$to/src" \( -name 'test_*.py' -o -name '*_test.py' -o -name conftest.py -o -name '*.pyc' \) -delete

    # docs pages (keep sub-folders), no conf.py / images / build output
    (cd "$from/docs" && find . -type f \( -name '*.rst' -o -name '*.md' -o -name '*.txt' \) \
        -not -path './_build/*' -not -path './build/*' -not -path './_static/*' \
        -not -path './_images/*' -not -path './images/*' -not -path './_templates/*' | sort) |
    while read -r rel; do
        mkdir -p "$to/docs/$(dirname "$rel")"
        cp -p "$from/docs/$rel" "$to/docs/$rel"
    done

    # root metadata
    local f
    for f in README.rst README.md README PKG-INFO LICENSE pyproject.toml setup.py setup.cfg; do
        [ -f "$from/$f" ] && cp -p "$from/$f" "$to/$f"
    done
    return 0
}

# mechanicalsoup 1.4.0: flat layout (mechanicalsoup/ at the sdist root) -> src/mechanicalsoup
lay_out mechanicalsoup-1.4.0 mechanicalsoup mechanicalsoup
# its setup.py lists packages=['mechanicalsoup'] relative to the root and reads the version from
# mechanicalsoup/__version__.py: point both at src/ so the layout is consistent.
M="$CORPORA/mechanicalsoup-1.4.0-r43/setup.py"
python3 - "$M" <<'EOF'
import sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
old_ver = "with open(path.join(here, 'mechanicalsoup', '__version__.py'),"
new_ver = "with open(path.join(here, 'src', 'mechanicalsoup', '__version__.py'),"
old_pk = "    packages=['mechanicalsoup'],\n"
new_pk = "    packages=['mechanicalsoup'],\n    package_dir={'': 'src'},\n"
assert s.count(old_ver) == 1 and s.count(old_pk) == 1, "unexpected setup.py"
s = s.replace(old_ver, new_ver).replace(old_pk, new_pk)
open(p, "w", encoding="utf-8").write(s)
EOF
touch -r "$WORK/mechanicalsoup-1.4.0/setup.py" "$M"

# py-moneyed 3.0: already a src/ layout (setup.cfg: package_dir =src, packages.find where = src),
# so its build settings already point at src/; only src/py_moneyed.egg-info is dropped.
lay_out py-moneyed-3.0 moneyed src/moneyed

# directory mtimes follow their newest entry so reruns give identical trees
for d in "$CORPORA/mechanicalsoup-1.4.0-r43" "$CORPORA/py-moneyed-3.0-r43"; do
    find "$d" -depth -type d | while read -r dir; do
        newest="$(find "$dir" -mindepth 1 -maxdepth 1 -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2-)"
        [ -n "$newest" ] && touch -r "$newest" "$dir"
    done
done
echo "laid out: $CORPORA/mechanicalsoup-1.4.0-r43 $CORPORA/py-moneyed-3.0-r43"
