"""Figure 9d: where the samples of a stack that changes faster than it can
be read fall.  tests/py/descend.py goes 600 frames down and back
over and over, logging the clock at every call and return, so it knows
how long its stack stood at each depth; a profiler that samples at moments
independent of the program should put its samples of descend at the
depths in the same shares.  The row gives, per interpreter and rate, the
total variation distance between the depths of pyprof's samples of
descend (per 100 frames) and the program's own shares (0: the same; 1:
disjoint), and CPython 3.15's sampler's on 3.15.

A sample is accepted only once two reads of the stack agree (pyprof(7),
"Consistent stacks"): a stack shrinking by a frame every few tens of
nanoseconds outruns a read of hundreds of frames, so the reads that agree
come from the moments it stood still or grew, and the re-reads move the
sample later.  This figure measures that displacement; it has no PASS yet.
"""
import os
import re

from harness import OTHER_PYS, PY_DIR, log, median, version_of
from figures.rejects import NEWER_PYS

FIGURES = ("9d",)
# The program the integration test runs (test_depth.c), shared.
DESCEND_PY = os.path.join(os.path.dirname(os.path.dirname(PY_DIR)), "tests", "py",
                          "descend.py")
ROUNDS = 3
BUCKETS = 6
DESCEND = re.compile(r"^(descend \(|.*:descend:\d+$)")


def hist_of_collapsed(text):
    h = [0] * BUCKETS
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        d = sum(1 for f in stack.split(";") if DESCEND.match(f))
        if d:
            h[min((d - 1) // 100, BUCKETS - 1)] += int(n)
    return h


def truth_of(r):
    m = re.search(r"^truth ((?:[\d.]+ ?){%d})$" % BUCKETS, r.out, re.M)
    return [float(x) for x in m.group(1).split()] if m and r.rc == 0 else None


def tv(h, truth):
    n = sum(h)
    if not n or not truth:
        return None, n
    return sum(abs(x / n - t) for x, t in zip(h, truth)) / 2, n


def ours(b, py, hz, secs):
    out = b.outdir("fig9d")
    r = b.run([py, DESCEND_PY, secs],
              env=b.prof_env(hz, out))
    c = b.run([b.merge, "--format", "collapsed", out])
    return tv(hist_of_collapsed(c.out), truth_of(r))


def theirs(b, py, hz, secs):
    path = os.path.join(b.outdir("fig9d-theirs"), "c.txt")
    r = b.run([py, "-m", "profiling.sampling", "run", "-r", str(hz), "-a",
               "--collapsed", "-o", path, DESCEND_PY, secs])
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None, 0
    return tv(hist_of_collapsed(text), truth_of(r))


def run_all(b, figs):
    if b.sampler_ok:
        b.add("9d", "depths of samples on a fast deep stack", "n/a", "", "n/a (%s)" % b.sampler_ok)
        return
    secs = "1.5" if b.quick else "3"
    pys = [p for p in OTHER_PYS + NEWER_PYS if os.path.exists(p)]
    py315 = [p for p in pys if p.endswith("python3.15")]
    cfgs = [("pyprof", py, hz) for py in pys for hz in (1000, 10000)] + \
           [("theirs", py, hz) for py in py315 for hz in (1000, 10000)]
    res = {c: [] for c in cfgs}
    for rnd in range(ROUNDS):
        k = rnd * len(cfgs) // ROUNDS
        for who, py, hz in cfgs[k:] + cfgs[:k]:
            d, n = (ours if who == "pyprof" else theirs)(b, py, hz, secs)
            if d is not None:
                res[who, py, hz].append((d, n))
        log("depth fidelity round %d/%d done" % (rnd + 1, ROUNDS))
    vers = {py: version_of(py) for py in pys}
    for who in ("pyprof", "theirs"):
        for hz in (1000, 10000):
            parts = []
            for py in (pys if who == "pyprof" else py315):
                v = res[who, py, hz]
                if not v:
                    parts.append("%s n/a" % vers[py])
                    continue
                parts.append("%s %.2f (%.2f-%.2f) of %d" % (
                    vers[py], median([d for d, _ in v]), min(d for d, _ in v),
                    max(d for d, _ in v), median([n for _, n in v])))
            if parts:
                b.add("9d", "%s: distance of descend's sample depths from the program's "
                      "own, @ %d Hz (median of %d)" % (
                          "pyprof" if who == "pyprof" else "CPython's sampler", hz, ROUNDS),
                      "; ".join(parts), "info", "")
