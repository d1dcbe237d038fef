#!/usr/bin/env bash
# Reproduce the two round-40 corpora (folder A) from their PyPI sdists.
#   SDISTS  : folder holding the sdists (default: <this folder>/sdists)
#   CORPORA : where the corpora are written (default: /work/devsuite-corpora)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SDISTS="${SDISTS:-$HERE/sdists}"
CORPORA="${CORPORA:-/work/devsuite-corpora}"
mkdir -p "$CORPORA"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# ---------- aiosmtplib 5.1.3 (already a src/ layout) ----------
NAME=aiosmtplib; VER=5.1.3
DEST="$CORPORA/$NAME-$VER-r40"
rm -rf "$DEST"
tar -xzf "$SDISTS/$NAME-$VER.tar.gz" -C "$TMP"
mv "$TMP/$NAME-$VER" "$DEST"
rm -rf "$DEST/tests"                           # tests removed
rm -f  "$DEST/scripts/test_gmail_oauth.py"     # manual test script
rmdir  "$DEST/scripts" 2>/dev/null || true
rm -f  "$DEST/docs/conf.py" "$DEST/docs/Makefile"   # sphinx config / build tooling
rm -rf "$DEST/docs/build" "$DEST/docs/_build"
find "$DEST" -name '__pycache__' -type d -prune -exec rm -rf {} +

# ---------- injector 0.24.0 (flat layout -> moved under src/) ----------
NAME=injector; VER=0.24.0
DEST="$CORPORA/$NAME-$VER-r40"
rm -rf "$DEST"
tar -xzf "$SDISTS/$NAME-$VER.tar.gz" -C "$TMP"
mv "$TMP/$NAME-$VER" "$DEST"
mkdir -p "$DEST/src"
mv "$DEST/injector" "$DEST/src/injector"       # package -> src/injector/
rm -f  "$DEST/injector_test.py"                # tests removed
rm -rf "$DEST/injector.egg-info"               # build output (stale paths)
rm -f  "$DEST/docs/conf.py" "$DEST/docs/Makefile"
rm -rf "$DEST/docs/_templates" "$DEST/docs/_build"
# Point the packaging metadata at the new location.
python3 - "$DEST" <<'PY'
import sys, pathlib
root = pathlib.Path(sys.argv[1])
sp = root / "setup.py"
t = sp.read_text()
t = t.replace("open('injector/__init__.py')", "open('src/injector/__init__.py')")
t = t.replace("    packages=['injector'],\n",
              "    packages=['injector'],\n    package_dir={'': 'src'},\n")
assert "package_dir={'': 'src'}" in t and "src/injector/__init__.py" in t
sp.write_text(t)
sc = root / "setup.cfg"
c = sc.read_text()
if "[options]" not in c:
    c = c.rstrip("\n") + "\n\n[options]\npackage_dir =\n    = src\npackages = find:\n\n[options.packages.find]\nwhere = src\n"
sc.write_text(c)
mi = root / "MANIFEST.in"
m = mi.read_text()
if "graft src" not in m:
    m = m.rstrip("\n") + "\ngraft src\n"
mi.write_text(m)
PY
find "$DEST" -name '__pycache__' -type d -prune -exec rm -rf {} +
echo "corpora written to $CORPORA"
