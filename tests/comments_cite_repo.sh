#!/bin/sh
# Comments in code and tests cite only what the repository holds (a man
# page, a test, a header): no design document kept elsewhere and no issue
# numbers, which a maintainer reading the tarball cannot follow.  Fails
# listing every line that does.
: "${srcdir:=$(dirname "$0")/..}"
cd "$srcdir" || exit 99
hits=$(grep -rnE --include='*.c' --include='*.h' --include='*.py' \
	--include='*.sh' --include='*.js' --include='*.mjs' --include='*.html' \
	--include='*.css' --exclude-dir=node_modules \
	-e '\b(SPEC|REFERENCE|TACHYON)\b' \
	-e '\b(SPEC|REFERENCE|TACHYON|ANCHORS|STYLE)\.md\b' \
	-e '\b[Ii]ssue #?[0-9]+' -e '§' \
	preload merge include tests bench | grep -v '^tests/comments_cite_repo\.sh:')
if [ -n "$hits" ]; then
	echo "comments citing documents or issues the repository does not hold:"
	echo "$hits"
	exit 1
fi
echo "no comment cites SPEC, REFERENCE, TACHYON or an issue number"
exit 0
