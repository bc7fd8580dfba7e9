#!/bin/sh
# Builds pyprof and profiles examples/pool_sum.py (a pool of 3 workers and
# a subprocess), then prints the merged report.
set -e
cd "$(dirname "$0")"
sh .ci/deps
[ -x configure ] || ./bootstrap >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q
make -s -j2
rm -rf demo.out
./pyprof-run -o demo.out -r 200 --report demo.out/report.txt -- python3 ../examples/pool_sum.py
cat demo.out/report.txt
