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
# npm packages the tests drive (test tooling only, locked), kept outside the
# checkout under $PYPROF_NPM_DIR and installed again when a lock file
# changes: tests/package.json (speedscope's schema and app, ajv) in it, and
# tests/browser/package.json (puppeteer-core) in its browser/ directory.  A
# test whose package is missing prints SKIP.
PYPROF_NPM_DIR=${PYPROF_NPM_DIR:-/var/cache/pyprof-npm}
export PYPROF_NPM_DIR
npm_install() {  # SOURCE_DIR TARGET_DIR
    if ! cmp -s "$1/package-lock.json" "$2/package-lock.json" ||
       [ ! -d "$2/node_modules" ]; then
        mkdir -p "$2"
        cp "$1/package.json" "$1/package-lock.json" "$2/"
        (cd "$2" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || {
            rm -f "$2/package-lock.json"
            echo "SKIP: npm ci in $2 failed: the tests that need it will say SKIP"
        }
    fi
}
if command -v npm >/dev/null 2>&1; then
    npm_install tests "$PYPROF_NPM_DIR"
    npm_install tests/browser "$PYPROF_NPM_DIR/browser"
else
    echo "SKIP: npm not found: the speedscope and browser tests will say SKIP"
fi
./bootstrap >/dev/null 2>&1
rm -rf build-check
mkdir build-check
cd build-check
../configure -q --enable-werror
make -s -j2
if ! make -s -j2 check; then
    # Criterion names a failing test and its assertions where they happen,
    # often hundreds of lines before a log's end: those lines first.
    for f in tests/*.log; do
        echo "==== $f"
        grep -E '^\[----\] .*(Assertion|Failed|failed)|^\[FAIL\]|^\[----\]   ' "$f" | head -n 80 || true
        echo "---- its last lines"
        tail -n 40 "$f"
    done
    exit 1
fi
cat tests/*.log | grep -E '^\[====\] Synthesis|^SKIP' || true
# One interpreter keeps this within CI's time; `make check-cpython` without
# CPYTHON_PYTHONS runs every interpreter found.
make -s check-cpython CPYTHON_PYTHONS="${HOME:-/root}/.pyenv/versions/3.13.0/bin/python"
