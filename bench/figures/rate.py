"""Figure 3: the highest rate at which one busy thread is sampled with at
most 0.1 % of its ticks missed (steady state), beside an empty loop's
missed ticks at each rate (the machine's floor).
"""
import os

from harness import PY_DIR, log, median

FIGURES = ("3",)


def run(b):
    rates = [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000]
    dur = 1.0 if b.quick else 2.0
    reps = 3 if b.quick else 5
    if b.a.reps:
        reps = b.a.reps
    if b.sampler_ok:
        b.add(3, "highest rate, no missed ticks, 1 busy thread", "n/a",
                 ">= 100 kHz", "n/a (%s)" % b.sampler_ok)
        return
    miss = {h: [] for h in rates}
    cpu = {h: [] for h in rates}
    for rep in range(reps):
        order = rates if rep % 2 == 0 else rates[::-1]
        for h in order:
            r, tot = b.profiled([b.py, os.path.join(PY_DIR, "busy.py"), str(dur)], h)
            # Steady state (pp-dump): start-up and exit excluded.
            if r.rc == 0 and tot.get("steady_c_ticks"):
                t, m = tot["steady_c_ticks"], tot["steady_c_missed"]
                miss[h].append(m / (t + m))
                cpu[h].append(tot["steady_c_cpu_ns"] / max(1, tot["steady_ns"]))
        log("rate sweep round %d/%d done" % (rep + 1, reps))
    best = None
    parts = []
    for h in rates:
        m = median(miss[h])
        parts.append("%dk:%s" % (h // 1000, "?" if m is None else "%.2g%%" % (100 * m)))
        if m is not None and m <= 0.001 and (best is None or best == rates[rates.index(h) - 1]):
            best = h
    if best is None:
        res = "< 1 kHz"
    else:
        res = "%d kHz (sampler %.0f %% of a CPU there)" % (best // 1000, 100 * median(cpu[best]))
    b.add(3, "highest rate, missed <= 0.1 %, 1 busy thread", res, ">= 100 kHz",
             "PASS" if best and best >= 100000 else "FAIL")
    b.add(3, "  missed ticks by rate (median)", " ".join(parts), "", "info")
    # The same sweep for an empty loop: a thread that only waits for
    # the deadlines (polling above 20 kHz, sleeping below, as the
    # sampler does) beside one busy thread, in another process.
    floor = []
    for h in rates:
        ms = []
        for rep in range(reps):
            r = b.run([b.tool["pp-waker"], "poll" if h > 20000 else "sleep",
                          str(h), str(dur)])
            w, m = int(r.value("wakes") or 0), int(r.value("missed") or 0)
            if r.rc == 0 and w + m:
                ms.append(m / (w + m))
        m = median(ms)
        floor.append("%dk:%s" % (h // 1000, "?" if m is None else "%.2g%%" % (100 * m)))
    b.add(3, "  machine floor: an empty loop's missed ticks", " ".join(floor), "", "info")

def run_all(b, figs):
    run(b)
