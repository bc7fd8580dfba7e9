#!/bin/sh
# Builds pyprof with warnings as errors and runs the whole test suite:
# unit tests (plain and ASan+UBSan) and integration tests against every
# CPython found on the machine.
set -e
cd "$(dirname "$0")"
sh .ci/deps
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
