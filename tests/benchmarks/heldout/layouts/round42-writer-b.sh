#!/usr/bin/env bash
# Reproduce the two round-42 (writer B) corpora from their PyPI sdists.
#
#   SDISTS   folder holding rtree-1.4.1.tar.gz and svcs-26.2.0.tar.gz
#            (default: the sdists/ folder next to this script)
#   CORPORA  folder the corpora are written into (default /work/devsuite-corpora)
#
# The sdists were fetched with
#   python -m pip download --no-deps --no-binary :all: rtree==1.4.1 -d "$SDISTS"
#   python -m pip download --no-deps --no-binary :all: svcs==26.2.0 -d "$SDISTS"
#
# Layout of each corpus (CORPORA/NAME-VERSION-r42):
#   src/<import name>/   the package, no tests
#   docs/...             the documentation pages (sub-folders kept; conf.py,
#                        Makefile, requirements.txt, _static/ assets dropped)
#   README*, PKG-INFO, pyproject.toml (+ setup.py/setup.cfg, LICENSE) at the root
# Rerunning replaces only these two corpus folders and gives identical trees
# (file contents and modification times come from the sdists).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"

for f in rtree-1.4.1.tar.gz svcs-26.2.0.tar.gz; do
    if [ ! -f "$SDISTS/$f" ]; then
        echo "missing $SDISTS/$f (see the pip download lines at the top)" >&2
        exit 1
    fi
done
mkdir -p "$CORPORA"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# copy one file, keeping its mtime, creating parent folders
put() {  # put SRC_ROOT REL DEST_ROOT [DEST_REL]
    local dst="$3/${4:-$2}"
    mkdir -p "$(dirname "$dst")"
    cp -p "$1/$2" "$dst"
}

# ---------------------------------------------------------------- rtree 1.4.1
# flat layout upstream (rtree/ at the root) -> moved to src/rtree/
S="$WORK/rtree-1.4.1"
D="$CORPORA/rtree-1.4.1-r42"
tar -xzf "$SDISTS/rtree-1.4.1.tar.gz" -C "$WORK"
rm -rf "$D"
mkdir -p "$D/src"
cp -pR "$S/rtree" "$D/src/rtree"
for f in README.md PKG-INFO pyproject.toml setup.py setup.cfg LICENSE.txt; do
    put "$S" "$f" "$D"
done
for f in changes.rst class.rst history.rst index.rst install.rst misc.rst \
         performance.rst tutorial.rst; do
    put "$S" "docs/source/$f" "$D"
done
# The package now lives under src/: point the packaging settings there.
# pyproject.toml lists packages = ["rtree"] with no package-dir; add one.
# setup.py copies rtree/lib and rtree/include from "_cwd / 'rtree'".
python3 - "$D" <<'PY'
import sys
from pathlib import Path
root = Path(sys.argv[1])
pp = root / "pyproject.toml"
text = pp.read_text()
old = '[tool.setuptools]\npackages = ["rtree"]\n'
assert text.count(old) == 1, "pyproject.toml: [tool.setuptools] block changed"
pp.write_text(text.replace(old, old + 'package-dir = {"" = "src"}\n'))
sp = root / "setup.py"
text = sp.read_text()
old = 'source_dir = _cwd / "rtree"'
assert text.count(old) == 1, "setup.py: source_dir line changed"
sp.write_text(text.replace(old, 'source_dir = _cwd / "src" / "rtree"'))
PY
touch -r "$S/pyproject.toml" "$D/pyproject.toml"
touch -r "$S/setup.py" "$D/setup.py"

# ---------------------------------------------------------------- svcs 26.2.0
# already src layout (hatchling finds src/svcs by itself; nothing to repoint)
S="$WORK/svcs-26.2.0"
D="$CORPORA/svcs-26.2.0-r42"
tar -xzf "$SDISTS/svcs-26.2.0.tar.gz" -C "$WORK"
rm -rf "$D"
mkdir -p "$D/src"
cp -pR "$S/src/svcs" "$D/src/svcs"
for f in README.md PKG-INFO pyproject.toml LICENSE; do
    put "$S" "$f" "$D"
done
( cd "$S" && find docs -type f \( -name '*.md' -o -name '*.py' \) ! -path 'docs/conf.py' \
      ! -path 'docs/_static/*' | LC_ALL=C sort ) | while read -r f; do
    put "$S" "$f" "$D"
done

# normalise folder mtimes so reruns give identical trees
for D in "$CORPORA/rtree-1.4.1-r42" "$CORPORA/svcs-26.2.0-r42"; do
    find "$D" -type d -exec touch -d '2000-01-01 00:00:00 UTC' {} +
done
echo "wrote $CORPORA/rtree-1.4.1-r42 and $CORPORA/svcs-26.2.0-r42"
