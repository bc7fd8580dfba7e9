#!/bin/sh
# `make dist` copies files and runs nothing: no entry of EXTRA_DIST may
# name a target of its own (`bench` once did, and make distdir ran the
# whole benchmark).  Asks make what distdir would do, in the build
# directory (make check runs this there), and fails on any recipe of the
# benchmark or the fuzzer.
if [ ! -f Makefile ] || ! grep -q '^distdir:' Makefile; then
	echo "SKIP: no automake Makefile in $(pwd)"
	exit 77
fi
out=$(${MAKE:-make} -n distdir distdir=dist-dry-run 2>&1) || {
	echo "make -n distdir failed:"
	echo "$out"
	exit 1
}
bad=$(echo "$out" | grep -E 'python3 [^ ]*bench/run\.py|fsanitize=fuzzer|fuzz-reader -max')
if [ -n "$bad" ]; then
	echo "make distdir would run:"
	echo "$bad"
	exit 1
fi
echo "make distdir runs neither the benchmark nor the fuzzer"
