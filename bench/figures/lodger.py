"""Figure 7w: what living in the program costs it, apart from reading.

A program that maps and unmaps memory all the time (recursion.py: CPython
3.11+ allocate data-stack chunks with mmap and free them with munmap,
three of each per descent) must, at every unmap, interrupt every other
CPU on which one of its own threads is running, to flush that CPU's TLB.
A sampler thread is such a thread for as long as it runs.  mixed16
(16 threads handing the GIL and a pipe around) is slowed instead by any
timer that wakes a CPU 10,000 times a second, in the program or not.
This figure runs both on 3.15 at 10 kHz with:

  - bench/pp-lodger.so: a thread of the program's own woken by a timer
    signal 10,000 times a second, as pyprof's sampler, that spins S
    microseconds and reads nothing (S = 0, 10, 20, 40);
  - the same waker in a child process (PP_LODGER_APART=1), spinning 0
    and 40;
  - pyprof itself, with the sampler's CPU per tick from its files.

Medians of per-round slowdowns against the program alone, in rotating
order.  No target: it says how much of pyprof's slowdown figure 7 any
in-process sampler pays on this machine, and how much is pyprof's.
"""
import os

from harness import log, median
from figures.cpython_sampler import find_python315, speed, workload_argv

FIGURES = ("7w",)
HZ = 10000
WORKLOADS = ("recursion", "mixed16")
SPINS = (0, 10, 20, 40)
APART_SPINS = (0, 40)


def lodger_env(b, spin_us, apart):
    env = b.base_env()
    env.update(LD_PRELOAD=os.path.join(b.build, "bench", "pp-lodger.so"),
               PP_LODGER_HZ=str(HZ), PP_LODGER_SPIN_US=str(spin_us),
               PP_LODGER_APART="1" if apart else "0")
    return env


def run_all(b, figs):
    py = find_python315(b)
    lodger = os.path.join(b.build, "bench", "pp-lodger.so")
    if not py or not os.path.exists(lodger):
        b.add("7w", "workloads beside a thread of their own", "n/a", "",
              "n/a (%s)" % ("no python3.15" if not py else "no bench/pp-lodger.so: make bench-tools"))
        return
    sizes = {wl: b.calibrate(py, wl, 0.8 if b.quick else 2.0) for wl in WORKLOADS}
    reps = 3 if b.quick else 7
    configs = ["off", "pyprof"] + ["thread%d" % s for s in SPINS] + \
        ["apart%d" % s for s in APART_SPINS]
    times = {(wl, c): [] for wl in WORKLOADS for c in configs}
    tick_cpu = {wl: [] for wl in WORKLOADS}
    for rep in range(reps):
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        for wl in WORKLOADS:
            for c in order:
                argv = workload_argv(py, wl, sizes[wl])
                if c == "off":
                    r = b.run(argv)
                elif c == "pyprof":
                    out = b.outdir("fig7w")
                    r = b.run(argv, env=b.prof_env(HZ, out))
                    st = b.dump(b.profile_files(out))
                    ticks = sum(s.get("ticks", 0) for s in st)
                    if ticks:
                        tick_cpu[wl].append(sum(s.get("cpu_ns", 0) for s in st) / ticks / 1e3)
                elif c.startswith("thread"):
                    r = b.run(argv, env=lodger_env(b, int(c[6:]), False))
                else:
                    r = b.run(argv, env=lodger_env(b, int(c[5:]), True))
                times[wl, c].append(speed(wl, r))
        log("a thread of its own, round %d/%d done" % (rep + 1, reps))

    def fmt(v):
        return "n/a" if v is None else "x%.3f" % v

    for wl in WORKLOADS:
        def sd(c):
            pairs = [(a, x) for a, x in zip(times[wl, "off"], times[wl, c]) if a and x]
            return median([x / a for a, x in pairs]) if pairs else None

        what = "%s on 3.15 @ %d Hz: slowdown" % (wl, HZ)
        b.add("7w", what + " beside a thread of its own woken at that rate, spinning S us a tick",
              ", ".join("S=%d %s" % (s, fmt(sd("thread%d" % s))) for s in SPINS), "", "")
        b.add("7w", what + " beside the same waker in a child process",
              ", ".join("S=%d %s" % (s, fmt(sd("apart%d" % s))) for s in APART_SPINS), "", "")
        b.add("7w", what + " under pyprof",
              "%s (sampler CPU %s us a tick)" % (
                  fmt(sd("pyprof")),
                  "n/a" if not tick_cpu[wl] else "%.1f" % median(tick_cpu[wl])), "", "")
