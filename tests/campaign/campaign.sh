#!/bin/sh
# Runs integration tests again and again, quiet and beside CPU hogs, and
# keeps what each statistical test measured (pp_measure in the harness)
# for tests/campaign/table.py to summarize: the spread behind each limit
# (tests/integration/README.md, "Statistical tests").
#
#   tests/campaign/campaign.sh BUILD FILTER QUIET HOGGED OUT
#
# BUILD is a configured build directory whose tests are built (make
# check, or make -C tests run-integration); FILTER a criterion filter
# ('core/*', '*/*'); QUIET and HOGGED the runs of each kind; OUT a
# directory for measures.tsv and one log per run (with criterion's XML
# report beside it, which times each test).  A hogged run has two
# busy shell loops beside it, started before the run and stopped after.
# Nothing else should run on the machine meanwhile.
set -u
[ $# -eq 5 ] || { echo "usage: $0 BUILD FILTER QUIET HOGGED OUT" >&2; exit 2; }
build=$(cd "$1" && pwd) filter=$2 quiet=$3 hogged=$4 out=$5
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

CRITERION_JOBS=1
PYPROF_TEST_LIB=$build/.libs/libpyprof.so
PYPROF_TEST_MERGE=$build/pyprof-merge
PYPROF_TEST_RUN=$build/pyprof-run
PYPROF_TEST_SCRIPTS=$src/tests/py
PYPROF_TEST_EMBED=$build/tests/pp-embed
PYPROF_TEST_BROWSER=$src/tests/browser
PYPROF_TEST_SHOTS=$build/tests/shots
: "${PYPROF_NPM_DIR:=/var/cache/pyprof-npm}"
PP_TEST_MEASURES=$out/measures.tsv
export CRITERION_JOBS PYPROF_TEST_LIB PYPROF_TEST_MERGE PYPROF_TEST_RUN \
    PYPROF_TEST_SCRIPTS PYPROF_TEST_EMBED PYPROF_TEST_BROWSER \
    PYPROF_TEST_SHOTS PYPROF_NPM_DIR PP_TEST_MEASURES

hogs=
stop_hogs() {
    [ -n "$hogs" ] && kill $hogs 2>/dev/null
    wait 2>/dev/null
    hogs=
}
trap 'stop_hogs; exit 130' INT TERM

one() {   # one TAG
    PP_TEST_MEASURE_TAG=$1
    export PP_TEST_MEASURE_TAG
    start=$(date -u +%FT%TZ)
    "$build/tests/run-integration" --filter "$filter" \
        --xml="$out/run-$1.xml" > "$out/run-$1.log" 2>&1
    rc=$?
    printf '%s\t%s\t%s\trc=%d\n' "$1" "$start" "$(date -u +%FT%TZ)" "$rc" >> "$out/runs.tsv"
    # Each [FAIL] line with the assertion message before it, which names
    # the interpreter.
    awk -v tag="$1" '/^\[----\]   \[/ { msg = substr($0, 10) }
        /^\[FAIL\]/ { print tag "\t" $2 "\t" msg; msg = "" }' \
        "$out/run-$1.log" >> "$out/failures.txt"
}

# Hogged runs spread evenly among the quiet ones, so that a campaign cut
# short still has both kinds.
q=0 h=0
while [ "$q" -lt "$quiet" ] || [ "$h" -lt "$hogged" ]; do
    if [ "$h" -lt "$hogged" ] &&
       { [ "$q" -ge "$quiet" ] || [ $(( (h + 1) * quiet )) -le $(( q * hogged )) ]; }; then
        h=$((h + 1))
        sh -c 'while :; do :; done' & hogs="$!"
        sh -c 'while :; do :; done' & hogs="$hogs $!"
        one "hogs-$h"
        stop_hogs
    else
        q=$((q + 1))
        one "quiet-$q"
    fi
done
echo "$out: $(wc -l < "$out/runs.tsv") runs, $(cat "$out/failures.txt" 2>/dev/null | wc -l) failures"
