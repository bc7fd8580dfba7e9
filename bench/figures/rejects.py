"""Figure 9: rejected samples (stacks that changed while read, a share of
all thread-samples) on the code whose stacks change fastest: fast
recursion (fib), generators and threads, at 1 kHz and 10 kHz, per
interpreter (the pyenv ones, Debian's static 3.11, and 3.14 and 3.15 where
the debian-pythons cache has them).

Each share is the median of three rounds, every round running all the
configurations in a rotated order (a busy machine's load, which decides
how often a sampled thread is stopped mid-change, then hits all alike);
the row also gives the rounds' range.
"""
import os

from harness import OTHER_PYS, PY_DIR, log, median, version_of

FIGURES = ("9",)
ROUNDS = 3
# Also taken when present (static builds, newer glibc).
NEWER_PYS = ["/usr/bin/python3.11"] + [
    os.path.join(os.environ.get("PYPROF_PYTHONS_CACHE", "/var/cache/pyprof-pythons"),
                 "root", "usr", "bin", "python3.%d" % m) for m in (14, 15)]



def run(b):
    dur = 1.0 if b.quick else 2.0
    pys = [p for p in OTHER_PYS + NEWER_PYS if os.path.exists(p)]
    if b.sampler_ok:
        b.add(9, "rejected samples", "n/a", "<= 1 %", "n/a (%s)" % b.sampler_ok)
        return
    wls = ("fib", "generators", "threads")
    args = {(wl, py): "%g" % dur if wl == "threads" else str(b.calibrate(py, wl, dur))
            for wl in wls for py in pys}
    cfgs = [(wl, hz, py) for wl in wls for hz in (1000, 10000) for py in pys]
    shares = {c: [] for c in cfgs}
    counts = {c: [] for c in cfgs}
    for rnd in range(ROUNDS):
        k = rnd * len(cfgs) // ROUNDS
        for wl, hz, py in cfgs[k:] + cfgs[:k]:
            r, tot = b.profiled([py, os.path.join(PY_DIR, wl + ".py"), args[wl, py]], hz)
            n = tot.get("samples", 0) + tot.get("rejected", 0)
            if r.rc == 0 and n:
                shares[wl, hz, py].append(tot["rejected"] / n)
                counts[wl, hz, py].append(n)
        log("rejects round %d/%d done" % (rnd + 1, ROUNDS))
    vers = {py: version_of(py) for py in pys}
    for wl in wls:
        for hz in (1000, 10000):
            parts, worst = [], 0.0
            for py in pys:
                s = shares[wl, hz, py]
                if not s:
                    parts.append("%s n/a" % vers[py])
                    continue
                m = median(s)
                worst = max(worst, m)
                parts.append("%s %.2f %% (%.2f-%.2f) of %d" % (
                    vers[py], 100 * m, 100 * min(s), 100 * max(s),
                    median(counts[wl, hz, py])))
            log("rejects %s @ %d Hz: %s" % (wl, hz, "; ".join(parts)))
            b.add(9, "rejected, %s @ %d Hz (median of %d)" % (wl, hz, ROUNDS),
                  "; ".join(parts), "<= 1 %", "PASS" if worst <= 0.01 else "FAIL")


def run_all(b, figs):
    run(b)
