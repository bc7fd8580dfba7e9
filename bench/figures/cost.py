"""Figures 2 and 4: the sampler's CPU per thread-sample at 1 kHz (steady
state, and inside ticks only: the rest is the kernel waking the thread),
and bytes per sample on disk, for the basic, deep_static and threads
workloads.
"""
import os

from harness import PY_DIR, fmt_ns, log, median

FIGURES = ("2", "4")


def run(b):
    dur = 1.5 if b.quick else 4.0
    hz = 1000
    reps = max(3, b.reps - 2) if not b.a.reps else b.reps
    # "threads" is the seed's: 5 threads at first, then 5..100 at random;
    # "threads xN" keeps N threads for the whole run.
    wls = ["basic", "deep_static", "threads", "threads x5", "threads x100"]
    res = {w: [] for w in wls}
    for rep in range(reps):
        order = wls[rep % len(wls):] + wls[:rep % len(wls)]
        for wl in order:
            script, _, n = wl.partition(" x")
            argv = [b.py, os.path.join(PY_DIR, script + ".py"), str(dur)]
            r, tot = b.profiled(argv + ([n] if n else []), hz, steady=True)
            if r.rc == 0:
                res[wl].append(tot)
        log("cost round %d/%d done" % (rep + 1, reps))
    targets = {w: 1000 for w in wls}
    targets["deep_static"] = 2000
    b.bytes_rows = []
    for wl in wls:
        runs = [t for t in res[wl] if t.get("samples")]
        if b.sampler_ok or not runs:
            b.add(2, "cost per thread-sample, %s @ %d Hz" % (wl, hz), "n/a",
                     "<= %s" % fmt_ns(targets[wl]),
                     "n/a (%s)" % (b.sampler_ok or "no samples"))
            b.add(4, "bytes per sample on disk, %s" % wl, "n/a", "<= 4",
                     "n/a (%s)" % (b.sampler_ok or "no samples"))
            continue
        # Steady state (second half of the run, exit excluded); the
        # whole-file figure includes start-up (file creation, tables).
        st = [t for t in runs if t.get("steady_c_samples")] or runs
        key = "steady_c_" if st is not runs else ""
        cost = median([t[key + "cpu_ns"] / t[key + "samples"] for t in st])
        whole_cost = median([t["cpu_ns"] / t["samples"] for t in runs])
        # Time inside ticks (files from this build on): the sampler's
        # own work; the rest of its CPU is the kernel waking it.
        intick = median([t[key + "tick_ns"] / t[key + "samples"] for t in st
                         if t.get(key + "tick_ns")])
        wake = median([(t[key + "cpu_ns"] - t[key + "tick_ns"]) / max(1, t[key + "ticks"])
                       for t in st if t.get(key + "tick_ns")])
        tps = median([t["samples"] / max(1, t["ticks"]) for t in runs])
        rej = median([t["rejected"] for t in runs])
        miss = median([t["missed"] for t in runs])
        share = median([t["steady_c_cpu_ns"] / max(1, t["steady_ns"]) for t in st]
                       if key else [t["cpu_ns"] / max(1, t["span_ns"]) for t in runs])
        b.add(2, "cost per thread-sample, %s @ %d Hz" % (wl, hz),
                 "%s steady, %s whole run (%.1f threads/tick, sampler %.1f %% of a CPU,"
                 " rejected %d, missed %d)"
                 % (fmt_ns(cost), fmt_ns(whole_cost), tps, 100 * share, rej, miss),
                 "<= %s" % fmt_ns(targets[wl]), "PASS" if cost <= targets[wl] else "FAIL")
        if intick is not None:
            b.add(2, "  inside ticks only (wake-up excluded: %s per tick)" % fmt_ns(wake),
                     fmt_ns(intick), "<= %s" % fmt_ns(targets[wl]),
                     "PASS" if intick <= targets[wl] else "FAIL")
        steady = median([t["steady_bytes"] / t["steady_samples"] for t in runs
                         if t.get("steady_samples")])
        whole = median([t["size"] / t["samples"] for t in runs])
        b.add(4, "bytes per sample on disk, %s" % wl,
                 "%.2f B steady (%.2f B whole file incl. tables)" % (
                     steady if steady is not None else float("nan"), whole),
                 "<= 4", "n/a" if steady is None else "PASS" if steady <= 4 else "FAIL")

def run_all(b, figs):
    run(b)
