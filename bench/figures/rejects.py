"""Figure 9: rejected samples (stacks that changed while read, a share of
all thread-samples) on the code whose stacks change fastest: fast
recursion (fib), generators and threads, at 1 kHz and 10 kHz, per
interpreter (the pyenv ones, Debian's static 3.11, and 3.14 and 3.15 where
the debian-pythons cache has them).
"""
import os
import subprocess

from harness import OTHER_PYS, PY_DIR, log

FIGURES = ("9",)
# Also taken when present (static builds, newer glibc).
NEWER_PYS = ["/usr/bin/python3.11"] + [
    os.path.join(os.environ.get("PYPROF_PYTHONS_CACHE", "/var/cache/pyprof-pythons"),
                 "root", "usr", "bin", "python3.%d" % m) for m in (14, 15)]


def run(b):
    dur = 1.5 if b.quick else 4.0
    pys = [p for p in OTHER_PYS + NEWER_PYS if os.path.exists(p)]
    if b.sampler_ok:
        b.add(9, "rejected samples", "n/a", "<= 1 %", "n/a (%s)" % b.sampler_ok)
        return
    for wl in ("fib", "generators", "threads"):
        for hz in (1000, 10000):
            parts, worst = [], 0.0
            for py in pys:
                ver = subprocess.run([py, "-c", "import platform;"
                                      "print(platform.python_version())"],
                                     capture_output=True, text=True).stdout.strip()
                arg = "%g" % dur if wl == "threads" else str(b.calibrate(py, wl, dur))
                r, tot = b.profiled([py, os.path.join(PY_DIR, wl + ".py"), arg], hz)
                n = tot.get("samples", 0) + tot.get("rejected", 0)
                if r.rc != 0 or not n:
                    parts.append("%s n/a" % ver)
                    continue
                share = tot["rejected"] / n
                worst = max(worst, share)
                parts.append("%s %.2f %% of %d" % (ver, 100 * share, n))
            log("rejects %s @ %d Hz: %s" % (wl, hz, "; ".join(parts)))
            b.add(9, "rejected, %s @ %d Hz" % (wl, hz), "; ".join(parts), "<= 1 %",
                  "PASS" if worst <= 0.01 else "FAIL")


def run_all(b, figs):
    run(b)
