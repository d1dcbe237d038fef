#!/usr/bin/env bash
# Round 41, writer A: lay out the two corpora from their PyPI sdists.
#
#   SDISTS   folder holding the sdists   (default: <this folder>/sdists)
#   CORPORA  folder receiving the corpora (default: /work/devsuite-corpora)
#
# Produces  $CORPORA/execnet-2.1.1-r41  and  $CORPORA/aiocache-0.12.3-r41 :
#   src/<import name>/   the package, tests removed
#   docs/                documentation pages (sub-folders kept; no conf.py,
#                        images, templates, Makefile or build config)
#   root                 README, PKG-INFO, pyproject.toml (+ setup.py/setup.cfg)
# Rerunning replaces exactly these two folders; the result is byte-identical
# (contents and tar mtimes) on every run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
SDISTS="$(cd "$SDISTS" && pwd)"
mkdir -p "$CORPORA"
CORPORA="$(cd "$CORPORA" && pwd)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/layout-r41A.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

unpack() {  # unpack NAME-VERSION -> prints the unpacked folder
    local base="$1" tarball="$SDISTS/$1.tar.gz"
    [ -f "$tarball" ] || { echo "missing sdist: $tarball" >&2; exit 1; }
    tar -xzf "$tarball" -C "$WORK" --no-same-owner
    echo "$WORK/$base"
}

# copy SRC_ROOT REL [DEST_REL]: copy one file keeping its mtime
copy() {
    local from="$1/$2" to="$DEST/${3:-$2}"
    mkdir -p "$(dirname "$to")"
    cp -p "$from" "$to"
}

# ---------------------------------------------------------------- execnet
# Already a src/ layout (hatchling; pyproject's version-file and mypy paths
# already point at src/). Docs live in doc/ in the sdist -> docs/.
U="$(unpack execnet-2.1.1)"
DEST="$CORPORA/execnet-2.1.1-r41"
rm -rf "$DEST"; mkdir -p "$DEST"
for f in README.rst PKG-INFO pyproject.toml LICENSE; do copy "$U" "$f"; done
( cd "$U" && find src/execnet -type f \( -name '*.py' -o -name 'py.typed' \) \
      ! -path '*/__pycache__/*' | LC_ALL=C sort ) |
while read -r f; do copy "$U" "$f"; done
# docs: every .rst page plus the runnable example scripts; drop conf.py,
# Makefile, _static (images), _templates (HTML), the docs package marker and
# the pytest plumbing of the examples (conftest.py, test_*.py).
( cd "$U/doc" && find . -type f \( -name '*.rst' -o -name '*.py' \) \
      ! -name conf.py ! -name conftest.py ! -name '__init__.py' ! -name 'test_*.py' \
      ! -path './_*' | LC_ALL=C sort ) |
while read -r f; do f="${f#./}"; copy "$U" "doc/$f" "docs/$f"; done

# ---------------------------------------------------------------- aiocache
# Flat layout in the sdist (aiocache/ at the root) -> src/aiocache/.
# setup.py declares packages=("aiocache",) but no package_dir / find(where=),
# and setup.cfg / pyproject.toml declare no package directory either, so no
# packaging setting is rewritten (see the note in the report).
U="$(unpack aiocache-0.12.3)"
DEST="$CORPORA/aiocache-0.12.3-r41"
rm -rf "$DEST"; mkdir -p "$DEST"
for f in README.rst PKG-INFO pyproject.toml setup.py setup.cfg LICENSE; do copy "$U" "$f"; done
( cd "$U" && find aiocache -type f -name '*.py' ! -path '*/__pycache__/*' | LC_ALL=C sort ) |
while read -r f; do copy "$U" "$f" "src/$f"; done
( cd "$U/docs" && find . -type f -name '*.rst' | LC_ALL=C sort ) |
while read -r f; do f="${f#./}"; copy "$U" "docs/$f"; done

# directory mtimes: pin them to the sdist's newest file so reruns match
for d in "$CORPORA/execnet-2.1.1-r41" "$CORPORA/aiocache-0.12.3-r41"; do
    ref="$(find "$d" -type f -printf '%T@ %p\n' | LC_ALL=C sort -n | tail -1 | cut -d' ' -f2-)"
    find "$d" -type d -exec touch -r "$ref" {} +
done

echo "laid out: $CORPORA/execnet-2.1.1-r41 $CORPORA/aiocache-0.12.3-r41"
