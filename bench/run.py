#!/usr/bin/env python3
"""pyprof benchmark suite: prints one table and writes it to a file.

    make bench                     # from a build directory
    make bench BENCH_ARGS=--quick  # or: make bench-quick
    python3 bench/run.py BUILD_DIR [--quick] [--python PATH]
                           [--figures 1,2,...] [--reps N] [--out FILE]
                           [--no-perf] [--no-other-pythons]

Each figure is the median of several runs in which the configurations
being compared alternate (rotating order), so that the drift of a shared,
noisy machine hits all of them alike; overheads are medians of per-round
ratios.  Sampler counters (samples, rejected, missed ticks, sampler CPU
time, ticks) come from the profile files themselves, decoded by
bench/pp-dump (pyprof-merge's JSON does not carry them).  Figures the
product cannot produce yet say "n/a (reason)".

The harness is bench/harness.py; each figure is a module of
bench/figures/.  This script runs under any python3 >= 3.7; the
workloads run under --python (default /root/.pyenv/versions/3.12.1/bin/python).
"""
import argparse
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import DEFAULT_PY, Bench, log  # noqa: E402
from figures import ALL  # noqa: E402


def figure_order(fig_id):
    m = re.match(r"(\d+)(.*)", fig_id)
    return (int(m.group(1)), m.group(2)) if m else (999, fig_id)


def selected(a):
    every = {f for m in ALL for f in m.FIGURES}
    if a.figures:
        figs = set(a.figures.split(","))
        unknown = figs - every
        if unknown:
            sys.exit("bench: unknown figure(s) %s (known: %s)" % (
                ",".join(sorted(unknown)), ",".join(sorted(every, key=figure_order))))
        return figs
    figs = set(every)
    if a.quick or a.no_other_pythons:
        figs.discard("1b")
    return figs


def main(a):
    b = Bench(a)
    t0 = time.time()
    head = b.machine()
    for h in head:
        log(h)
    b.probe()
    figs = selected(a)
    try:
        for m in ALL:
            if figs & set(m.FIGURES):
                m.run_all(b, figs)
    finally:
        if not a.keep:
            shutil.rmtree(b.tmp, ignore_errors=True)
    b.rows.sort(key=lambda r: figure_order(r[0]))
    text = head + [""] + b.table()
    if b.notes:
        text += ["", "notes:"] + ["- " + n for n in b.notes]
    if getattr(b, "perf_text", None):
        text += ["", "where the sampler thread's CPU goes (perf record -t <sampler tid>,"
                 " cpu-clock every 20 us, kernel call chains; strace -c for syscall"
                 " counts):"] + b.perf_text
    text.append("")
    text.append("total bench time %.0f s" % (time.time() - t0))
    out = "\n".join(text) + "\n"
    sys.stdout.write(out)
    path = a.out or os.path.join(HERE, "results-%s.txt" % time.strftime("%Y-%m-%d-%H%M"))
    try:
        with open(path, "w") as f:
            f.write(out)
        print("table written to %s" % path)
    except OSError as e:
        print("cannot write %s: %s" % (path, e))


def parse_args():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("build_dir", nargs="?", help="build directory (default: .)")
    a.add_argument("--build", help="same as BUILD_DIR")
    a.add_argument("--python", default=DEFAULT_PY if os.path.exists(DEFAULT_PY)
                   else shutil.which("python3"), help="interpreter for the workloads")
    a.add_argument("--python315", help="CPython 3.15 for figure 7 (default: the"
                   " debian-pythons cache, $PYPROF_PYTHONS_CACHE or /var/cache/pyprof-pythons)")
    a.add_argument("--quick", action="store_true", help="fewer rounds, smaller workloads")
    a.add_argument("--figures", help="comma-separated subset of figure ids, e.g. 1,6,7")
    a.add_argument("--workloads", help="figure 2 only: comma-separated subset, "
                   "e.g. basic,deep_static")
    a.add_argument("--compare", metavar="PY", help="figure 2 only: run every "
                   "workload on this interpreter too, in the same rotation")
    a.add_argument("--reps", type=int, help="rounds per figure (default 7, quick 3)")
    a.add_argument("--out", help="table file (default bench/results-DATE.txt)")
    a.add_argument("--no-perf", action="store_true", help="skip the perf profile")
    a.add_argument("--no-other-pythons", action="store_true",
                   help="full mode: skip figure 1b on the other interpreters")
    a.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ns = a.parse_args()
    ns.build = ns.build or ns.build_dir or "."
    return ns


if __name__ == "__main__":
    main(parse_args())
