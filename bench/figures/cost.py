"""Figures 2 and 4: the sampler's CPU per thread-sample at 1 kHz (steady
state, and inside ticks only: the rest is the kernel waking the thread),
and bytes per sample on disk, for the basic, deep_static and threads
workloads.
"""
import os

from harness import PY_DIR, fmt_ns, log, median, version_of

FIGURES = ("2", "4")


def run(b):
    dur = 1.5 if b.quick else 4.0
    hz = 1000
    reps = max(3, b.reps - 2) if not b.a.reps else b.reps
    # "threads" is the seed's: 5 threads at first, then 5..100 at random;
    # "threads xN" keeps N threads for the whole run.  deep_wait: idle
    # threads under deep stacks beside a running one, read once while
    # they do not take the GIL.
    wls = (b.a.workloads.split(",") if b.a.workloads else
           ["basic", "deep_static", "shallow_static", "deep_busy",
            "deep_busy x1", "deep_wait", "threads", "threads x5",
            "threads x100"])
    # --compare PY: the same workloads on a second interpreter, in the
    # same rotation, so that a shared machine's drift hits both alike.
    pys = [("", b.py)] + ([(" [%s]" % version_of(b.a.compare),
                               b.a.compare)] if b.a.compare else [])
    cfgs = [(tag, py, wl) for tag, py in pys for wl in wls]
    res = {(tag, wl): [] for tag, _, wl in cfgs}
    for rep in range(reps):
        order = cfgs[rep % len(cfgs):] + cfgs[:rep % len(cfgs)]
        for tag, py, wl in order:
            script, _, n = wl.partition(" x")
            argv = [py, os.path.join(PY_DIR, script + ".py"), str(dur)]
            r, tot = b.profiled(argv + ([n] if n else []), hz, steady=True)
            if r.rc == 0:
                res[tag, wl].append(tot)
        log("cost round %d/%d done" % (rep + 1, reps))
    intick = {}
    cost = {(tag, wl): rows(b, tag, wl, res[tag, wl], hz, intick)
            for tag, _, wl in cfgs}
    # What a 900-frame stack adds over a shallow one (3.15's frame cache
    # should make it nearly nothing).
    # Against basic (shallow but running) the wake-up differs too: a
    # sleeping process's sampler is woken from an idle CPU.  Against
    # shallow_static (one frame, asleep like deep_static) only depth does.
    # deep_static's thread sleeps: what depth costs a thread that runs
    # (the frame cache's real case on 3.15) shows against deep_busy's
    # one-frame twin.  The "inside ticks" rows leave out the kernel's
    # wake-up, which varies by several microseconds between runs here.
    for tag, _ in pys:
        for deep, other in (("deep_static", "basic"),
                            ("deep_static", "shallow_static"),
                            ("deep_busy", "deep_busy x1")):
            minus(b, "%s minus %s @ %d Hz%s" % (deep, other, hz, tag),
                  cost.get((tag, deep)), cost.get((tag, other)))
            if other != "basic":
                minus(b, "  inside ticks, %s minus %s%s" % (deep, other, tag),
                      intick.get((tag, deep)), intick.get((tag, other)))


def minus(b, label, deep, base):
    if deep is not None and base is not None:
        b.add(2, label, "%+.2f us" % ((deep - base) / 1000), "<= +2 us",
              "PASS" if deep - base <= 2000 else "FAIL")


def rows(b, tag, wl, runs, hz, intick_out):
    targets = {"deep_static": 2000, "shallow_static": 2000, "deep_busy": 2000,
               "deep_busy x1": 2000, "deep_wait": 2000}
    targets.setdefault(wl, 1000)
    runs = [t for t in runs if t.get("samples")]
    if b.sampler_ok or not runs:
        b.add(2, "cost per thread-sample, %s @ %d Hz%s" % (wl, hz, tag), "n/a",
                 "<= %s" % fmt_ns(targets[wl]),
                 "n/a (%s)" % (b.sampler_ok or "no samples"))
        b.add(4, "bytes per sample on disk, %s%s" % (wl, tag), "n/a", "<= 4",
                 "n/a (%s)" % (b.sampler_ok or "no samples"))
        return None
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
    b.add(2, "cost per thread-sample, %s @ %d Hz%s" % (wl, hz, tag),
             "%s steady, %s whole run (%.1f threads/tick, sampler %.1f %% of a CPU,"
             " rejected %d, missed %d)"
             % (fmt_ns(cost), fmt_ns(whole_cost), tps, 100 * share, rej, miss),
             "<= %s" % fmt_ns(targets[wl]), "PASS" if cost <= targets[wl] else "FAIL")
    if intick is not None:
        intick_out[tag, wl] = intick
        b.add(2, "  inside ticks only (wake-up excluded: %s per tick)" % fmt_ns(wake),
                 fmt_ns(intick), "<= %s" % fmt_ns(targets[wl]),
                 "PASS" if intick <= targets[wl] else "FAIL")
    steady = median([t["steady_bytes"] / t["steady_samples"] for t in runs
                     if t.get("steady_samples")])
    whole = median([t["size"] / t["samples"] for t in runs])
    b.add(4, "bytes per sample on disk, %s%s" % (wl, tag),
             "%.2f B steady (%.2f B whole file incl. tables)" % (
                 steady if steady is not None else float("nan"), whole),
             "<= 4", "n/a" if steady is None else "PASS" if steady <= 4 else "FAIL")
    return cost


def run_all(b, figs):
    run(b)
