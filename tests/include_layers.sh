#!/bin/sh
# preload/ is built in layers, lowest first:
#   base guard python record sample hooks, then the constructor on top
#   (preload/*.c); preload/run/ (pyprof-run) is a program of its own and
#   includes none of them.
# A file includes headers of its own layer or of lower ones, never of a
# higher one, so no include cycle can join two folders; it names a
# preload header by its folder ("base/log.h"), so that every include is
# seen here; and it reaches another file's symbols through a header, not
# through an extern declaration of its own, which would hide an edge from
# this check.  Where the library's objects are built (make check runs
# this in the build directory) the same order is checked on the calls
# themselves: no object takes a symbol from an object of a higher layer
# (the C library's functions the hooks interpose, which the library
# exports, are the C library's, whoever calls them).
# Fails listing every line or call that does not.
builddir=$(pwd)
: "${srcdir:=$(dirname "$0")/..}"
cd "$srcdir" || exit 99
LAYERS="base guard python record sample hooks top"
rank_of() {
	r=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $r; return; }
		r=$((r + 1))
	done
	echo -1
}
out=$(find preload -name '*.[ch]' | LC_ALL=C sort | while read -r f; do
	rel=${f#preload/}
	case $rel in
	*/*) layer=${rel%%/*} ;;
	*) layer=top ;;
	esac
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
	sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' |
	while read -r line inc; do
		first=${inc%%/*}
		[ "$first" = "$inc" ] && first=
		if [ "$first" = pyprof ]; then
			continue
		fi
		if [ -z "$first" ] || [ "$first" = .. ] || [ "$first" = . ]; then
			if [ "$layer" = run ] && [ ! -e "preload/run/$inc" ]; then
				continue        # pyprof-run's headers from merge/
			fi
			echo "$f:$line: #include \"$inc\": name the layer folder"
			continue
		fi
		if [ "$layer" = run ] && [ "$first" != run ]; then
			echo "$f:$line: pyprof-run includes the library's \"$inc\""
			continue
		fi
		[ "$layer" = run ] && continue    # pyprof-run's own headers
		mine=$(rank_of "$layer")
		theirs=$(rank_of "$first")
		if [ "$theirs" -lt 0 ]; then
			echo "$f:$line: #include \"$inc\": $first is not a layer ($LAYERS)"
		elif [ "$theirs" -gt "$mine" ]; then
			echo "$f:$line: $layer includes \"$inc\" of the higher layer $first"
		fi
	done
	case $f in
	*.c)
		grep -n '^[[:space:]]*extern[[:space:]]' "$f" |
		grep -v 'extern char \*\*environ;' |
		sed "s|^\([0-9]*\):\(.*\)|$f:\1: an extern declaration outside a header: \2|"
		;;
	esac
done)
# The calls: objects of libpyprof.so, named after their sources
# (preload/<layer>/.libs/libpyprof_la-<file>.o; the constructor's in
# preload/.libs).
objs=$(find "$builddir/preload" -path '*/.libs/libpyprof_la-*.o' 2>/dev/null |
	LC_ALL=C sort)
if [ -n "$objs" ] && command -v nm >/dev/null 2>&1; then

	for o in $objs; do
		rel=${o#"$builddir"/preload/}
		layer=${rel%%/*}
		[ "$layer" = .libs ] && layer=top
		echo "$(rank_of "$layer") $layer $o"
	done > "$builddir/include_layers.objs"
	lib=$(find "$builddir" -path '*/.libs/libpyprof.so' | head -n 1)
	[ -n "$lib" ] && nm -D --defined-only "$lib" |
		awk '{ print "libc", $3 }' > "$builddir/include_layers.libc"
	calls=$({ cat "$builddir/include_layers.libc" 2>/dev/null
	while read -r rank layer o; do
		nm --defined-only "$o" | awk -v r="$rank" -v l="$layer" -v o="$o" \
			'$2 ~ /^[TDBRVW]$/ { print "def", $3, r, l, o }'
		nm -u "$o" | awk -v r="$rank" -v l="$layer" -v o="$o" \
			'{ print "use", $2, r, l, o }'
	done < "$builddir/include_layers.objs"; } |
	awk '$1 == "libc" { libc[$2] = 1; next }
	     $1 == "def" { rank[$2] = $3; layer[$2] = $4; file[$2] = $5; next }
	     { use[++n] = $0 }
	     END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if ((u[2] in rank) && !(u[2] in libc) && rank[u[2]] > u[3]) {
				sub(/.*\/libpyprof_la-/, "", u[5]); f = file[u[2]]
				sub(/.*\/libpyprof_la-/, "", f)
				print u[4] "/" u[5] " calls " u[2] " of the higher layer " \
				      layer[u[2]] " (" f ")"
			}
		}
	     }')
	rm -f "$builddir/include_layers.objs" "$builddir/include_layers.libc"
	out=$(printf '%s\n%s' "$out" "$calls" | sed '/^$/d')
else
	echo "SKIP: the calls between layers (no libpyprof objects under $builddir/preload, or no nm)"
fi
if [ -n "$out" ]; then
	echo "preload/ includes against its layers ($LAYERS):"
	echo "$out"
	exit 1
fi
echo "preload/ includes follow the layers: $LAYERS"
exit 0
