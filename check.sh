#!/bin/sh
# Builds pyprof with warnings as errors and runs the whole test suite:
# unit tests (plain and ASan+UBSan) and integration tests against every
# CPython found on the machine.
set -e
cd "$(dirname "$0")"
sh .ci/deps
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
