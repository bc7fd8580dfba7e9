"""Figure 10: what the live view costs the program it watches, and what a
tree started paused costs against no preload at all.  A pool of
four workers busy for a fixed time (bench/py/workers.py: the work they get
done in that time is the measure), profiled at 100 Hz into a directory,
with and without `pyprof-merge --live` reading that directory in an 80x24
terminal (a detached tmux session) all along, in alternating rounds; also
the view's own CPU time.  The files are flushed as always (every 200 ms):
the view asks nothing more of the program; what it costs is the CPU it
takes beside it (2 cores here, 4 workers: every CPU is busy).
"""
import os
import shutil
import subprocess
import time

from harness import PY_DIR, log, median

FIGURES = ("10", "10p")


def cpu_of(pid):
    """The CPU time pid's main thread has run, in seconds (schedstat: in
    ns, where /proc/PID/stat counts 10 ms ticks), or None."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def run(b):
    if not shutil.which("tmux"):
        b.add(10, "live view's cost", "tmux not installed", "", "n/a")
        return
    secs = "2" if b.quick else "4"
    argv = [b.py, os.path.join(PY_DIR, "workers.py"), secs, "4"]
    work = {"profiled": [], "profiled + live view": []}
    view_cpu = []
    sock = "pyprof-bench-%d" % os.getpid()
    for rep in range(b.reps):
        order = list(work) if rep % 2 == 0 else list(reversed(list(work)))
        for c in order:
            out = b.outdir("live")
            env = b.prof_env(100, out)
            pane = None
            if c != "profiled":
                # exec: the pane's process is the view itself
                subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-s", "v",
                                "-x", "80", "-y", "24",
                                "exec %s --live %s" % (b.merge, out)],
                               check=False, env=b.base_env())
                r = subprocess.run(["tmux", "-L", sock, "display", "-p", "-t", "v",
                                    "#{pane_pid}"], capture_output=True, text=True)
                pane = int(r.stdout.strip() or 0) or None
                time.sleep(0.2)
            r = b.run(argv, env=env, timeout=120)
            if pane:
                used = cpu_of(pane)
                if used is not None:
                    view_cpu.append(used / float(secs))
                subprocess.run(["tmux", "-L", sock, "kill-server"], check=False,
                               stderr=subprocess.DEVNULL)
            w = r.value("work")
            work[c].append(int(w) if r.rc == 0 and w else None)
        log("live view round %d/%d done" % (rep + 1, b.reps))
    base = median(work["profiled"])
    with_view = median(work["profiled + live view"])
    if not base or not with_view:
        b.add(10, "live view's cost", "runs failed", "", "n/a")
        return
    cost = 1 - with_view / base
    b.add(10, "work done beside the live view (4 busy workers, 2 CPUs, 100 Hz)",
          "%.1f %% less (%d vs %d units; the view used %.1f %% of a CPU)" % (
              100 * cost, with_view, base, 100 * (median(view_cpu) or 0)),
          "the view's own CPU", "info")


def paused(b):
    """Figure 10p: bench/py/workers.py's work in a fixed time, plainly and
    under pyprof-run --paused never started (every process profiled, its
    sampler asleep on the control page), in alternating rounds."""
    run_bin = os.path.join(b.build, "pyprof-run")
    secs = "2" if b.quick else "4"
    argv = [b.py, os.path.join(PY_DIR, "workers.py"), secs, "4"]
    work = {"none": [], "paused": []}
    for rep in range(b.reps):
        order = list(work) if rep % 2 == 0 else list(reversed(list(work)))
        for c in order:
            if c == "none":
                r = b.run(argv)
            else:
                r = b.run([run_bin, "--paused", "-q", "-o", b.outdir("paused"), "--"] + argv)
            w = r.value("work")
            work[c].append(int(w) if r.rc == 0 and w else None)
        log("paused tree round %d/%d done" % (rep + 1, b.reps))
    base, p = median(work["none"]), median(work["paused"])
    if not base or not p:
        b.add("10p", "paused tree's cost", "runs failed", "", "n/a")
        return
    b.add("10p", "work done by a tree started paused, never started, against no preload "
                 "(4 busy workers, 2 CPUs)",
          "%+.1f %% (%d vs %d units)" % (100 * (p / base - 1), p, base),
          "within noise", "info")


def run_all(b, figs):
    if "10" in figs:
        run(b)
    if "10p" in figs:
        paused(b)
