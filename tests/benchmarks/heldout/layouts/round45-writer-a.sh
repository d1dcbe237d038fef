#!/bin/sh
# Reproduce the two round-45 corpora (team A) from the sdists in this folder.
#   agate 1.14.2     -> /work/devsuite-corpora/agate-1.14.2-r45
#   asyncssh 2.24.1  -> /work/devsuite-corpora/asyncssh-2.24.1-r45
# Both sdists use a flat layout (package at the root); it is moved under src/.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SDISTS="${SDISTS:-/work/round45/A/sdists}"
DEST=${CORPORA:-${DEVSUITE_CORPORA:-/work/devsuite-corpora}}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

layout() {  # name version import_name
    name=$1; ver=$2; imp=$3
    out="$DEST/$name-$ver-r45"
    tar -xzf "$SDISTS/$name-$ver.tar.gz" -C "$TMP"
    unpacked="$TMP/$name-$ver"
    rm -rf "$out"
    mkdir -p "$out/src" "$out/docs"
    # package source, without tests or caches
    cp -R "$unpacked/$imp" "$out/src/$imp"
    find "$out/src" -depth \( -name tests -o -name __pycache__ \) -type d -exec rm -rf {} +
    find "$out/src" -type f \( -name 'test_*.py' -o -name '*.pyc' \) -delete
    # documentation pages (.rst / .md), keeping sub-folders; no conf.py, images,
    # templates, themes, requirement lists or build output
    (cd "$unpacked/docs" && find . -type f \( -name '*.rst' -o -name '*.md' \) \
        ! -path './_build/*' ! -path './_templates/*' ! -path './images/*' \
        ! -path './rftheme/*') | while read -r f; do
        mkdir -p "$out/docs/$(dirname "$f")"
        cp "$unpacked/docs/$f" "$out/docs/$f"
    done
    # root metadata
    for f in README.rst README.md PKG-INFO pyproject.toml; do
        [ -f "$unpacked/$f" ] && cp "$unpacked/$f" "$out/$f"
    done
    echo "laid out $out"
}

layout agate 1.14.2 agate
layout asyncssh 2.24.1 asyncssh
