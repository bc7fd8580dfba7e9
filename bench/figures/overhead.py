"""Figure 1: the application's slowdown under the preload at 100 Hz,
1 kHz and 10 kHz (wall time measured inside the workload), each beside the
machine's floor (another process that only wakes at that rate); 1b: the
same on the other interpreters (full mode); 8: other profilers (cProfile
per thread; austin and py-spy when on PATH), measured in the same
alternating rounds.
"""
import os
import statistics
import subprocess

from harness import OTHER_PYS, median, pct

FIGURES = ("1", "1b", "8")


def run(b):
    wls = ["recursion", "objects", "generators", "mixed16"]
    rates = sorted({b.hz_default, 1000, 10000})
    target_s = 0.4 if b.quick else 1.5
    b.cprofile_mode = None
    configs, times, sampler = b.overhead(b.py, wls, rates, b.reps, target_s)
    for wl in wls:
        base = median(times[wl, "off"])
        offs = [t for t in times[wl, "off"] if t]
        noise = (statistics.pstdev(offs) / base) if base and len(offs) > 1 else None
        for h in rates:
            c = "hz%d" % h
            ov = b.ratio(times, wl, c)
            tgt = 0.03 if h >= 10000 else 0.01
            smp = median([t.get("samples") for t in sampler[wl, c]]) or 0
            cpu = median([t.get("cpu_ns") for t in sampler[wl, c]]) or 0
            m = median(times[wl, c])
            res = "%s (%.3f s vs %.3f s; sd %.1f %%; %d samples, sampler %.1f ms CPU)" % (
                pct(ov), m or 0, base or 0, 100 * (noise or 0), smp, cpu / 1e6)
            if b.sampler_ok:
                verdict = "n/a (%s)" % b.sampler_ok
            elif ov is None:
                verdict = "n/a (runs failed)"
            else:
                verdict = "PASS" if ov <= tgt else "FAIL"
            name = "%d Hz%s" % (h, " (default)" if h == b.hz_default else "")
            b.add(1, "overhead %s @ %s" % (wl, name), res,
                     "<= %d %%" % round(tgt * 100), verdict)
            fl = b.ratio(times, wl, "wake%d" % h)
            b.add(1, "  machine floor: another process only waking @ %d Hz" % h,
                     pct(fl) if fl is not None else "n/a", "", "info")
    for c in configs:
        if c == "off" or c.startswith("hz") or c.startswith("wake"):
            continue
        parts = []
        for wl in wls:
            ov = b.ratio(times, wl, c)
            parts.append("%s x%.2f" % (wl, 1 + ov) if ov is not None
                         else "%s failed" % wl)
        what = "cProfile per thread" if c == "cprofile" else c
        if c == "cprofile" and b.cprofile_mode == "shared":
            what += " (3.12+: one profiler, see note)"
            b.notes.append(
                "cProfile on Python 3.12+ uses sys.monitoring, one tool per "
                "interpreter: the article's per-thread Profile.enable() raises "
                "'Another profiling tool is already active', so threads ran "
                "under the main thread's profiler.")
        b.add(8, "%s / none" % what, "; ".join(parts), "ratio", "info")
    for name, argv in b.wrappers().items():
        if not argv:
            b.add(8, "%s / none" % name, "not installed", "ratio", "n/a")
    # pyprof's own ratio at the default rate, beside the other profilers.
    parts = ["%s x%.2f" % (wl, 1 + b.ratio(times, wl, "hz%d" % b.hz_default))
             for wl in wls if b.ratio(times, wl, "hz%d" % b.hz_default) is not None]
    b.add(8, "pyprof @ %d Hz / none" % b.hz_default, "; ".join(parts) or "n/a",
             "ratio", "info")


def other_interpreters(b):
    """The same overhead on the other interpreters (full mode)."""
    wls = ["recursion", "objects"]
    for py in OTHER_PYS:
        if not os.path.exists(py) or os.path.realpath(py) == os.path.realpath(b.py):
            continue
        ver = subprocess.run([py, "-c", "import platform;print(platform.python_version())"],
                             capture_output=True, text=True).stdout.strip()
        rates = sorted({b.hz_default, 1000})
        _, times, sampler = b.overhead(py, wls, rates, 5, 0.8,
                                          label="[%s] " % ver, extra=False)
        for h in rates:
            c = "hz%d" % h
            parts, ok = [], True
            for wl in wls:
                ov = b.ratio(times, wl, c)
                smp = median([t.get("samples") for t in sampler[wl, c]]) or 0
                parts.append("%s %s (%d samples)" % (wl, pct(ov), smp))
                ok = ok and ov is not None and ov <= 0.01
                if not smp:
                    ok = None
            verdict = ("n/a (no samples on %s)" % ver if ok is None
                       else "PASS" if ok else "FAIL")
            b.add("1b", "overhead Python %s @ %d Hz" % (ver, h), "; ".join(parts),
                     "<= 1 %", verdict)


def run_all(b, figs):
    if figs & {"1", "8"}:
        run(b)
    if "1b" in figs:
        other_interpreters(b)
