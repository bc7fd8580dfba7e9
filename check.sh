#!/bin/sh
# Builds pyprof with warnings as errors and runs the whole test suite:
# unit tests (plain and ASan+UBSan) and integration tests against every
# CPython found on the machine (after installing CPython 3.14 and 3.15),
# then CPython 3.13's own regression tests for what the preload hooks,
# plainly and under pyprof-run (make check-cpython; about 15 minutes;
# README "CPython's own tests").
set -e
cd "$(dirname "$0")"
sh .ci/deps
# CPython 3.14 and 3.15 (Debian 12 has neither) from Debian unstable's
# packages by the shared tool beside this checkout, into a cache outside it
# (README, "CPython versions": where, and how to clear it).  The integration
# tests look for them there; a version that cannot be installed is skipped.
PYPROF_PYTHONS_CACHE=${PYPROF_PYTHONS_CACHE:-/var/cache/pyprof-pythons}
export PYPROF_PYTHONS_CACHE
tool=../shared/tools/debian-pythons
for v in 3.14 3.15; do
    py="$PYPROF_PYTHONS_CACHE/root/usr/bin/python$v"
    if [ ! -f "$tool" ]; then
        why="$tool not found"
    elif sh "$tool" "$PYPROF_PYTHONS_CACHE" "$v" >/dev/null 2>debian-pythons.err; then
        why=""
    else
        why="$tool failed: $(tail -n 1 debian-pythons.err)"
    fi
    rm -f debian-pythons.err
    if [ -z "$why" ]; then
        :
    elif [ -x "$py" ] && "$py" -c '' 2>/dev/null; then
        echo "CPython $v: $why; testing the one already in the cache, $py"
    else
        echo "SKIP: CPython $v: $why"
    fi
done
# npm packages the tests drive (tests/package.json, locked), installed
# outside the checkout; a test whose package is missing prints SKIP.
npm_dir=/var/cache/pyprof-npm
if command -v npm >/dev/null 2>&1; then
    if ! cmp -s tests/package-lock.json "$npm_dir/package-lock.json" ||
       [ ! -d "$npm_dir/node_modules" ]; then
        mkdir -p "$npm_dir"
        cp tests/package.json tests/package-lock.json "$npm_dir/"
        (cd "$npm_dir" && npm ci --no-audit --no-fund >/dev/null) ||
            echo "SKIP: npm ci in $npm_dir failed"
    fi
# npm packages of the browser tests (tests/browser/package.json: test
# tooling only), kept outside the checkout in their own directory under
# $PYPROF_NPM_DIR and installed again when the lock file changes.
PYPROF_NPM_DIR=${PYPROF_NPM_DIR:-/var/cache/pyprof-npm}
export PYPROF_NPM_DIR
npm_browser=$PYPROF_NPM_DIR/browser
if ! cmp -s tests/browser/package-lock.json "$npm_browser/package-lock.json"; then
    mkdir -p "$npm_browser"
    cp tests/browser/package.json tests/browser/package-lock.json "$npm_browser/"
    (cd "$npm_browser" && npm ci --no-audit --no-fund --loglevel=error) || {
        rm -f "$npm_browser/package-lock.json"
        echo "SKIP: npm ci failed in $npm_browser: the browser tests will say SKIP"
    }
fi
./bootstrap >/dev/null 2>&1
rm -rf build-check
mkdir build-check
cd build-check
../configure -q --enable-werror
make -s -j2
if ! make -s -j2 check; then
    for f in tests/*.log; do echo "==== $f"; tail -n 60 "$f"; done
    exit 1
fi
cat tests/*.log | grep -E '^\[====\] Synthesis|^SKIP' || true
# One interpreter keeps this within CI's time; `make check-cpython` without
# CPYTHON_PYTHONS runs every interpreter found.
make -s check-cpython CPYTHON_PYTHONS="${HOME:-/root}/.pyenv/versions/3.13.0/bin/python"
