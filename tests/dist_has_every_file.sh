#!/bin/sh
# `make dist` carries every file of the repository a build or a reader of
# the tarball needs: the shared headers under include/ were once missing,
# so a tarball could not build.  Makes the distribution directory (copies
# only: tests/dist_runs_nothing.sh) and compares its files with git's, in
# the build directory (make check runs this there); CI's own files and
# .gitignore are not shipped.  Skips outside a git checkout.
if [ ! -f Makefile ] || ! grep -q '^distdir:' Makefile; then
	echo "SKIP: no automake Makefile in $(pwd)"
	exit 77
fi
src=$(sed -n 's/^abs_top_srcdir = //p' Makefile)
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP: $src is not a git checkout"
	exit 77
fi
dir=dist-files-check
rm -rf "$dir"
out=$(${MAKE:-make} distdir distdir="$dir" 2>&1) || {
	echo "make distdir failed:"
	echo "$out"
	rm -rf "$dir"
	exit 1
}
missing=$(git -C "$src" ls-files | grep -v -e '^\.ci/' -e '^\.gitignore$' |
	while read -r f; do [ -e "$dir/$f" ] || echo "$f"; done)
rm -rf "$dir"
if [ -n "$missing" ]; then
	echo "make dist leaves out:"
	echo "$missing"
	exit 1
fi
echo "make dist carries every file of the repository"
