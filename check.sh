#!/bin/sh
# Builds pyprof with warnings as errors and runs the whole test suite:
# unit tests (plain and ASan+UBSan) and integration tests against every
# CPython found on the machine, then CPython 3.13's own regression tests
# for what the preload hooks, plainly and under pyprof-run (make
# check-cpython; about 15 minutes; README "CPython's own tests").
set -e
cd "$(dirname "$0")"
sh .ci/deps
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
