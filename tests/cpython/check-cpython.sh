#!/bin/sh
# check-cpython.sh -r PYPROF_RUN -w WORKDIR [-t TIMEOUT] [-s "SUITES"] [PYTHON...]
#
# `make check-cpython`: runs CPython's own regression tests for what
# libpyprof.so hooks (fork, exec, spawn, signals, threads, faulthandler,
# multiprocessing) with each PYTHON, once plainly and once under pyprof-run,
# both `python -m test -j2 --timeout TIMEOUT --junit-xml`, and compares the
# outcomes test case by test case (compare.py).  Fails if any outcome
# differs that known.txt does not list as flaky or waiting for a fix and
# that differs again when those tests run a second time in both modes.
# Tests that fail or hang plainly here are listed in known.txt with the
# reason; a suite an interpreter's test package lacks is reported with a
# SKIP line.  Without PYTHON: every interpreter found, as the integration
# tests find them (pyenv 3.10 and later, Debian's /usr/bin/python3.11) and
# those the debian-pythons script unpacked under /var/cache/pyprof-pythons;
# Debian's get their test suites from testsuites.sh first.  Everything of one interpreter is kept under WORKDIR/VERSION:
# plain.log/xml, pyprof.log/xml, prof/ (the profiles), compare.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
run= work= timeout=900
suites="test_subprocess test_os test_signal test_threading test_faulthandler
        test_multiprocessing_fork test_multiprocessing_forkserver
        test_multiprocessing_spawn test_concurrent_futures"
while getopts r:w:t:s: o; do
    case $o in
    r) run=$OPTARG ;;
    w) work=$OPTARG ;;
    t) timeout=$OPTARG ;;
    s) suites=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ -n "$run" ] && [ -n "$work" ] || {
    echo "usage: $0 -r PYPROF_RUN -w WORKDIR [-t TIMEOUT] [-s SUITES] PYTHON..." >&2
    exit 2
}
# The plain run must not be profiled, and both runs see the same settings.
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(PYPROF_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
if [ $# -eq 0 ]; then
    for py in "${HOME:-/root}"/.pyenv/versions/3.*/bin/python /usr/bin/python3.11 \
              /var/cache/pyprof-pythons/root/usr/bin/python3.*; do
        case $py in
        */versions/3.[0-9].*|*/versions/*[!0-9.]*/bin/python) continue ;;
        *-config) continue ;;
        esac
        [ -x "$py" ] && set -- "$@" "$py"
    done
fi
sh "$here/testsuites.sh" "$@"
mkdir -p "$work"
work=$(cd "$work" && pwd)

elapsed() {
    s=$(($2 - $1))
    printf '%dm%02ds' $((s / 60)) $((s % 60))
}

failed=0
for py in "$@"; do
    if ! ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null); then
        echo "SKIP: $py not found"
        continue
    fi
    dir="$work/$ver"
    rm -rf "$dir"
    mkdir -p "$dir"
    have=
    for s in $suites; do
        if "$py" -c "import importlib.util, sys
sys.exit(importlib.util.find_spec('test.$s') is None)" 2>/dev/null; then
            have="$have $s"
        else
            echo "SKIP: $ver: $s is not in $py's test package"
        fi
    done
    if [ -z "$have" ]; then
        echo "SKIP: $ver: $py has none of the test suites (no test package?)"
        continue
    fi
    "$py" "$here/compare.py" --version "$ver" --known "$here/known.txt" \
        --ignore-patterns > "$dir/ignore.txt" || { failed=1; continue; }
    echo "$ver: $py -m test$have ($(wc -l < "$dir/ignore.txt") test ids ignored, see known.txt)"

    t0=$(date +%s)
    (cd "$dir" && "$py" -m test -j2 --timeout "$timeout" --ignorefile "$dir/ignore.txt" \
        --junit-xml "$dir/plain.xml" $have > plain.log 2>&1)
    t1=$(date +%s)
    (cd "$dir" && "$run" -o "$dir/prof" -- "$py" -m test -j2 --timeout "$timeout" \
        --ignorefile "$dir/ignore.txt" --junit-xml "$dir/pyprof.xml" $have > pyprof.log 2>&1)
    t2=$(date +%s)
    echo "$ver: plain $(elapsed "$t0" "$t1"), under pyprof-run $(elapsed "$t1" "$t2")"

    "$py" "$here/compare.py" --version "$ver" --known "$here/known.txt" \
        "$dir/plain.xml" "$dir/plain.log" "$dir/pyprof.xml" "$dir/pyprof.log" \
        > "$dir/compare.txt"
    rc=$?
    if [ $rc -ne 0 ] && grep -q '^  DIFFERENT: ' "$dir/compare.txt"; then
        # A difference must be seen twice: the tests that differed run once
        # more, plainly and under pyprof-run, and only a difference that
        # comes back fails.  A busy 2-core machine makes some of CPython's
        # timing tests fail now and then in either run.
        keys=$(sed -n 's/^  DIFFERENT: \([^:]*\): .*/\1/p' "$dir/compare.txt")
        files=$(for k in $keys; do
                    case $k in test.*) echo "$k" | cut -d. -f2 ;; *) echo "$k" ;; esac
                done | sort -u)
        : > "$dir/again.match"
        for k in $keys; do
            case $k in test.*.*) echo "$k" >> "$dir/again.match" ;; *) : > "$dir/again.match"; break ;; esac
        done
        match=
        [ -s "$dir/again.match" ] && match="--matchfile $dir/again.match"
        echo "$ver: $(echo "$keys" | wc -l) outcome(s) differed; running$(echo " $files" | tr '\n' ' ')again"
        (cd "$dir" && "$py" -m test -j2 --timeout "$timeout" --ignorefile "$dir/ignore.txt" \
            $match --junit-xml "$dir/plain2.xml" $files > plain2.log 2>&1)
        (cd "$dir" && "$run" -o "$dir/prof2" -- "$py" -m test -j2 --timeout "$timeout" \
            --ignorefile "$dir/ignore.txt" $match --junit-xml "$dir/pyprof2.xml" $files \
            > pyprof2.log 2>&1)
        "$py" "$here/compare.py" --version "$ver" --known "$here/known.txt" \
            "$dir/plain2.xml" "$dir/plain2.log" "$dir/pyprof2.xml" "$dir/pyprof2.log" \
            > "$dir/compare2.txt"
        rc=$?
        if [ $rc -eq 0 ]; then
            sed -n 's/^  DIFFERENT: /  FLAKY (differed once, not when run again): /p' \
                "$dir/compare.txt" > "$dir/flaky.txt"
            sed -e '/^  DIFFERENT: /d' -e 's/^compare: [0-9]* outcome(s) differ under pyprof-run$/compare: same outcomes once the differing tests ran again/' \
                "$dir/compare.txt" > "$dir/compare1.txt"
            cat "$dir/compare1.txt" "$dir/flaky.txt" > "$dir/compare.txt"
        else
            { echo "again:"; cat "$dir/compare2.txt"; } >> "$dir/compare.txt"
        fi
    fi
    # The second run was profiled: every test file ran in its own Python
    # worker, so at least one profile per file plus regrtest's own.
    # (the summary line; the not-profiled list after it starts "pyprof:" too)
    summary=$(grep '^pyprof: [0-9]* processes (' "$dir/pyprof.log" | tail -n 1)
    pys=$(echo "$summary" | sed -n 's/.*(\([0-9]*\) Python).*/\1/p')
    nfiles=$(grep -c '^.*\] test' "$dir/pyprof.log")
    if [ -z "$pys" ] || [ "$pys" -le "$nfiles" ]; then
        echo "$ver: the pyprof-run summary shows ${pys:-no} Python processes" \
             "for $nfiles test files: was the run profiled? ($summary)" >> "$dir/compare.txt"
        rc=1
    fi
    sed "s/^/$ver: /" "$dir/compare.txt"
    [ $rc -eq 0 ] || failed=1
done
exit $failed
