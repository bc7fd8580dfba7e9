"""Figure 7: pyprof beside CPython's own sampler (`python3.15 -m
profiling.sampling`) on the same 3.15 interpreter and workloads.

  7   recursion, deep_static, threads and mixed16 at 100 Hz, 1 kHz and
      10 kHz: the application's slowdown; the CPU the profiler adds to the
      whole process tree (the tree's CPU with the profiler minus without,
      paired by round) per sample that reaches the report; samples
      delivered against the ticks asked (rate x the time the program itself
      ran; samples count every thread);
      bytes per sample on disk.
  7b  the loaded machine: as many busy application processes as cores,
      each profiled (their profiler processes and our sampler threads then
      compete with the application for every cycle).
  7t  the tree: 10 subprocess and 10 fork children of 60 ms each, under
      their --subprocesses and under pyprof-run: how many children have a
      profile.
  7m  memory: what each profiler adds to the whole tree's peak
      proportional set size (PSS, summed over every process of the run's
      session, profiler processes included, read every 0.2 s), on one
      process with 10 threads and on a pool of 4 worker processes
      (bench/py/workers.py, theirs with --subprocesses), at 1 kHz.

What each side counts: theirs is run with `-a` (every thread, as pyprof)
and `--binary` (their most compact format, written by C code); a sample is
delivered when it is in the written profile ("Binary profile written to
... (N samples)"), so their failed samples, which "Captured" includes, are
not counted.  When behind schedule their sampler takes the late samples
back to back (their loop moves its next deadline one interval per
sample), while pyprof counts the deadlines that
passed as missed and takes one sample: so on a busy machine their
"delivered" includes samples of nearly one moment.  Where 1.5 x theirs is
more than pyprof could deliver at all (every tick asked, times the threads
a tick samples), the row says so beside its verdict; and where a tick's
bare timer wake-up on this machine (bench/pp-waker, a process that only
wakes at the rate), shared among the samples pyprof takes a tick, is
already more than a tenth of their CPU per sample, the row says that too;
with the one system call pyprof makes for every sample (the sampled
thread's CPU clock, for its on-CPU flag: `pp-waker clock`) added, it says
whether the two alone are more than that tenth, or else how much of it
they take.
Ours: the samples in
the files (bench/pp-dump).  CPU comes
from wait4() of the launched process, which includes every descendant it
waited for: their profiler waits for its target, and our sampler is a
thread of the target.
"""
import os
import re
import signal
import statistics
import subprocess
import time

from harness import PY_DIR, log, median

FIGURES = ("7", "7b", "7t", "7m")

WORKLOADS = ("recursion", "deep_static", "threads", "mixed16")
# Workloads that do a fixed amount of work and print "elapsed": slowdown
# is the time ratio.  threads runs for a fixed time and prints "work":
# slowdown is the work ratio.  deep_static sleeps under a deep stack: it
# has no speed to lose, only the profiler's CPU and samples to measure.
FIXED_WORK = ("recursion", "mixed16")
RATES = (100, 1000, 10000)


def find_python315(b):
    cands = [getattr(b.a, "python315", None)]
    cache = os.environ.get("PYPROF_PYTHONS_CACHE", "/var/cache/pyprof-pythons")
    cands.append(os.path.join(cache, "root", "usr", "bin", "python3.15"))
    for c in cands:
        if c and os.path.exists(c):
            return c
    return None


def theirs_argv(py, hz, out, script_argv, extra=()):
    return [py, "-m", "profiling.sampling", "run", "-r", str(hz), "-a"] + list(extra) + \
        ["--binary", "-o", out] + script_argv


def theirs_samples(r):
    m = re.search(r"Binary profile written to .* \((\d+) samples\)", r.out + r.err)
    return int(m.group(1)) if m else None


def program_seconds(wl, r, size):
    """How long the program itself ran (interpreter start-up and the
    profiler's own start excluded): the ticks asked are rate x this."""
    if wl in FIXED_WORK:
        v = r.value("elapsed") if r.rc == 0 else None
        return float(v) if v else None
    return float(size)


def speed(wl, r):
    """The workload's own measure: seconds for fixed work, work units for
    fixed time (larger is faster)."""
    if r.rc != 0:
        return None
    v = r.value("elapsed" if wl in FIXED_WORK else "work")
    return float(v) if v else None


def slowdown(wl, offs, ons):
    pairs = [(a, b) for a, b in zip(offs, ons) if a and b]
    if not pairs or wl == "deep_static":
        return None
    if wl in FIXED_WORK:
        return statistics.median(b / a for a, b in pairs) - 1.0
    return statistics.median(a / b for a, b in pairs) - 1.0


def workload_argv(py, wl, size):
    return [py, os.path.join(PY_DIR, wl + ".py"), str(size)]


def one(b, py, wl, cfg, size, out):
    """Runs one configuration; returns dict(speed, cpu, secs, delivered, bytes)."""
    argv = workload_argv(py, wl, size)
    if cfg == "off":
        r = b.run_cpu(argv)
        return dict(speed=speed(wl, r), cpu=r.cpu, secs=program_seconds(wl, r, size))
    kind, hz = cfg.split("@")
    hz = int(hz)
    if kind == "pyprof":
        r = b.run_cpu(argv, env=b.prof_env(hz, out))
        stats = b.dump(b.profile_files(out))
        n = sum(s.get("samples", 0) for s in stats)
        size_b = sum(s.get("size", 0) for s in stats)
        return dict(speed=speed(wl, r), cpu=r.cpu, secs=program_seconds(wl, r, size),
                    delivered=n, bytes=size_b, rejected=sum(s.get("rejected", 0) for s in stats),
                    ticks=sum(s.get("ticks", 0) for s in stats))
    path = os.path.join(out, "theirs.bin")
    r = b.run_cpu(theirs_argv(py, hz, path, argv[1:]))
    n = theirs_samples(r)
    m = re.search(r"Error rate: ([\d.]+)", r.out + r.err)
    return dict(speed=speed(wl, r), cpu=r.cpu, secs=program_seconds(wl, r, size),
                delivered=n, bytes=os.path.getsize(path) if os.path.exists(path) else None,
                errors=float(m.group(1)) if m else None)


def side_by_side(b, py):
    target_s = 0.8 if b.quick else 2.0
    reps = 2 if b.quick else 5
    sizes = {}
    for wl in WORKLOADS:
        if wl in FIXED_WORK:
            sizes[wl] = b.calibrate(py, wl, target_s)
        else:
            sizes[wl] = target_s
    configs = ["off"] + ["%s@%d" % (k, h) for h in RATES for k in ("pyprof", "theirs")]
    res = {(wl, c): [] for wl in WORKLOADS for c in configs}
    for rep in range(reps):
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        if rep % 2:
            order.reverse()
        for wl in WORKLOADS:
            for c in order:
                res[wl, c].append(one(b, py, wl, c, sizes[wl], b.outdir("fig7")))
        log("CPython's sampler vs pyprof, round %d/%d done" % (rep + 1, reps))
    wake = {h: wake_cost(b, h) for h in RATES}
    for h in RATES:
        if wake[h] is not None:
            b.add(7, "machine floor: a bare timer wake-up @ %d Hz" % h,
                  "%.1f us of CPU a wake (bench/pp-waker sleep)" % (wake[h] * 1e6),
                  "", "info")
    clock = clock_cost(b)
    if clock is not None:
        b.add(7, "machine floor: one read of a thread's CPU clock (pyprof's on-CPU flag, "
              "one a sample)", "%.2f us of CPU a read (bench/pp-waker clock)" % (clock * 1e6),
              "", "info")
    for wl in WORKLOADS:
        offs = res[wl, "off"]
        for h in RATES:
            row = {}
            for k in ("pyprof", "theirs"):
                runs = res[wl, "%s@%d" % (k, h)]
                sd = slowdown(wl, [o["speed"] for o in offs], [r["speed"] for r in runs])
                added = [(r["cpu"] - o["cpu"]) / r["delivered"]
                         for o, r in zip(offs, runs) if r.get("delivered")]
                asked = median([r["secs"] * h for r in runs if r.get("secs")])
                dlv = median([r.get("delivered") for r in runs])
                bps = median([r["bytes"] / r["delivered"] for r in runs
                              if r.get("delivered") and r.get("bytes")])
                per_tick = median([r["delivered"] / r["ticks"] for r in runs
                                   if r.get("ticks") and r.get("delivered")])
                row[k] = dict(sd=sd, cpu=median(added), asked=asked, dlv=dlv, bps=bps,
                              per_tick=per_tick, wake=wake[h], clock=clock)
            add_row(b, wl, h, row)


def waker_cost(b, args, count):
    """CPU seconds per event of bench/pp-waker ARGS (median of 3 runs): its
    thread's cpu_ns over its COUNT line, or None."""
    costs = []
    for _ in range(3):
        r = b.run([b.tool["pp-waker"]] + args)
        n, c = int(r.value(count) or 0), int(r.value("cpu_ns") or 0)
        if r.rc == 0 and n:
            costs.append(c / n / 1e9)
    return median(costs)


def wake_cost(b, hz):
    """One bare timer wake-up at hz on this machine."""
    return waker_cost(b, ["sleep", str(hz), "1"], "wakes")


def clock_cost(b):
    """One read of another thread's CPU clock, the system call pyprof makes
    for every sample's on-CPU flag (over 7 sleeping threads, threads.py's
    count)."""
    return waker_cost(b, ["clock", "7", "0.3"], "reads")


def fmt_side(d):
    sd = "n/a" if d["sd"] is None else "x%.3f" % (1 + d["sd"])
    cpu = "n/a" if d["cpu"] is None else "%.1f us" % (d["cpu"] * 1e6)
    bps = "n/a" if d["bps"] is None else "%.2f B" % d["bps"]
    return "slowdown %s, added CPU/sample %s, %s samples in ~%s ticks asked, %s/sample" % (
        sd, cpu, "n/a" if d["dlv"] is None else "%d" % d["dlv"],
        "n/a" if d["asked"] is None else "%d" % d["asked"], bps)


def add_row(b, wl, h, row):
    ours, theirs = row["pyprof"], row["theirs"]
    checks = []
    if not ours["dlv"]:
        b.add(7, "%s @ %d Hz: pyprof" % (wl, h), fmt_side(ours), "", "n/a (no samples)")
        b.add(7, "%s @ %d Hz: CPython's sampler" % (wl, h), fmt_side(theirs), "", "")
        return
    if ours["cpu"] and theirs["cpu"]:
        checks.append(ours["cpu"] <= theirs["cpu"] / 10)
    if h >= 10000 and ours["sd"] is not None and theirs["sd"] is not None:
        checks.append(ours["sd"] <= max(theirs["sd"], 0) / 2)
    if ours["dlv"] and theirs["dlv"]:
        checks.append(ours["dlv"] >= 1.5 * theirs["dlv"])
    verdict = "n/a" if not checks else "PASS" if all(checks) else "FAIL"
    floor = ours["wake"] / ours["per_tick"] if ours["wake"] and ours.get("per_tick") else None
    if floor and theirs["cpu"] and ours["cpu"] and ours["cpu"] > theirs["cpu"] / 10:
        if floor > theirs["cpu"] / 10:
            verdict += " (the bare wake-up alone is %.1f us a sample here)" % (floor * 1e6)
        elif ours["clock"] and floor + ours["clock"] > theirs["cpu"] / 10:
            verdict += " (the bare wake-up and the CPU clock read alone are %.1f us a " \
                       "sample here)" % ((floor + ours["clock"]) * 1e6)
        else:
            verdict += " (the bare wake-up and the CPU clock read are %.0f %% of a tenth " \
                       "of theirs here)" % (100 * (floor + (ours["clock"] or 0)) /
                                            (theirs["cpu"] / 10))
    most = ours["asked"] * ours["per_tick"] if ours["asked"] and ours.get("per_tick") else None
    if theirs["dlv"] and most and 1.5 * theirs["dlv"] > most:
        verdict += " (1.5x theirs is more than the %d samples asked)" % most
    target = "CPU <= 1/10, delivered >= 1.5x" + (", slowdown <= 1/2" if h >= 10000 else "")
    b.add(7, "%s @ %d Hz: pyprof" % (wl, h), fmt_side(ours), target, verdict)
    b.add(7, "%s @ %d Hz: CPython's sampler" % (wl, h), fmt_side(theirs), "", "")


def loaded(b, py):
    """As many busy processes as cores, each under its own profiler."""
    ncpu = os.cpu_count() or 2
    reps = 2 if b.quick else 4
    wl = "recursion"
    size = b.calibrate(py, wl, 0.8 if b.quick else 2.0)
    configs = ["off"] + ["%s@%d" % (k, h) for h in (1000, 10000) for k in ("pyprof", "theirs")]
    times = {c: [] for c in configs}
    for rep in range(reps):
        order = configs[rep % len(configs):] + configs[:rep % len(configs)]
        for c in order:
            outs = [b.outdir("fig7b-%d" % i) for i in range(ncpu)]
            argvs, envs = [], []
            for i in range(ncpu):
                argv = workload_argv(py, wl, size)
                env = None
                if c.startswith("pyprof"):
                    env = b.prof_env(int(c.split("@")[1]), outs[i])
                elif c.startswith("theirs"):
                    argv = theirs_argv(py, int(c.split("@")[1]),
                                       os.path.join(outs[i], "theirs.bin"), argv[1:])
                argvs.append(argv)
                envs.append(env)
            rs = b.run_parallel(argvs, envs)
            el = [speed(wl, r) for r in rs]
            times[c].append(median(el) if all(el) else None)
        log("loaded machine, round %d/%d done" % (rep + 1, reps))
    for h in (1000, 10000):
        parts = {}
        for k in ("pyprof", "theirs"):
            parts[k] = slowdown(wl, times["off"], times["%s@%d" % (k, h)])
        ok = parts["pyprof"] is not None and parts["theirs"] is not None
        b.add("7b", "%d busy %s processes @ %d Hz: slowdown" % (ncpu, wl, h),
              "pyprof %s, CPython's sampler %s" % tuple(
                  "n/a" if parts[k] is None else "x%.3f" % (1 + parts[k])
                  for k in ("pyprof", "theirs")),
              "pyprof <= theirs", "n/a" if not ok else
              "PASS" if parts["pyprof"] <= parts["theirs"] else "FAIL")


def tree(b, py):
    script = os.path.join(PY_DIR, "tree20.py")
    out = b.outdir("fig7t-ours")
    run = os.path.join(b.build, "pyprof-run")
    r = b.run([run, "-q", "-o", out, "-r", "1000", "--", py, script], timeout=300)
    jf = os.path.join(b.tmp, "tree.json")
    b.run([b.merge, "--format", "json", "-o", jf, out])
    ours = None
    try:
        import json
        with open(jf) as f:
            doc = json.load(f)
        ours = sum(1 for p in doc["processes"] if p.get("parent") and p.get("samples"))
    except (OSError, ValueError, KeyError):
        pass
    tdir = b.outdir("fig7t-theirs")
    t = b.run([py, "-m", "profiling.sampling", "run", "-r", "1000", "-a", "--subprocesses",
               "--collapsed", "-o", os.path.join(tdir, "prof.txt"), script], timeout=300)
    kids = [f for f in os.listdir(tdir) if f != "prof.txt" and
            os.path.getsize(os.path.join(tdir, f)) > 0]
    b.add("7t", "20 children of 60 ms (10 subprocess, 10 fork) with a profile",
          "pyprof-run %s of 20; CPython's sampler --subprocesses %d of 20%s" % (
              "n/a" if ours is None else ours, len(kids),
              "" if r.rc == 0 and t.rc == 0 else " (rc %s / %s)" % (r.rc, t.rc)),
          "pyprof 20 of 20", "PASS" if ours == 20 else "FAIL")


def session_pss_kb(sid):
    """The PSS (KiB) summed over every process of session sid, and how
    many there were."""
    total, n = 0, 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
            # Fields after the command name, which may hold spaces.
            if int(st[st.rindex(")") + 2:].split()[3]) != sid:
                continue
            with open("/proc/%s/smaps_rollup" % d) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        n += 1
                        break
        except (OSError, ValueError):
            continue
    return total, n


def pss_peak(b, argv, env, secs):
    """Starts argv in a session of its own and reads the session's PSS
    every 0.2 s until argv ends (a profiler that starts its target late,
    or attaches to children as it finds them, is not caught early);
    returns the largest sum (kib, processes then), or None."""
    p = subprocess.Popen(argv, env=env or b.base_env(), cwd=b.tmp,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    best, deadline = None, time.monotonic() + secs * 10 + 60
    while p.poll() is None:
        got = session_pss_kb(p.pid)
        if got[1] and (best is None or got[0] > best[0]):
            best = got
        if time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return None
        time.sleep(0.2)
    return best if p.returncode == 0 else None


def memory(b, py):
    """Figure 7m: the PSS each profiler adds to a tree, at the tree's
    peak."""
    secs = 2.0 if b.quick else 4.0
    reps = 2 if b.quick else 3
    hz = 1000
    cases = [("one process, 10 threads", [os.path.join(PY_DIR, "threads.py"),
                                          "%g" % secs, "10"], []),
             ("a pool of 4 worker processes", [os.path.join(PY_DIR, "workers.py"),
                                               "%g" % secs, "4"], ["--subprocesses"])]
    for what, script, extra in cases:
        got = {"off": [], "pyprof": [], "theirs": []}
        for rep in range(reps):
            for cfg in ("off", "pyprof", "theirs"):
                out = b.outdir("fig7m-%s" % cfg)
                argv, env = [py] + script, None
                if cfg == "pyprof":
                    env = b.prof_env(hz, out)
                elif cfg == "theirs":
                    argv = theirs_argv(py, hz, os.path.join(out, "theirs.bin"), script,
                                       extra)
                got[cfg].append(pss_peak(b, argv, env, secs))
        log("memory, %s done" % what)
        base = median([g[0] for g in got["off"] if g])
        procs = median([g[1] for g in got["off"] if g])
        parts = {}
        for k in ("pyprof", "theirs"):
            kb = median([g[0] for g in got[k] if g])
            n = median([g[1] for g in got[k] if g])
            parts[k] = None if kb is None or base is None else (kb - base, n)
        ok = parts["pyprof"] is not None and parts["theirs"] is not None
        b.add("7m", "%s @ %d Hz: the tree's peak PSS, added by the profiler" % (what, hz),
              "; ".join("%s %s" % (name, "n/a" if parts[k] is None else
                                   "+%.1f MiB (%d processes)" % (parts[k][0] / 1024,
                                                                 parts[k][1]))
                        for k, name in (("pyprof", "pyprof"),
                                        ("theirs", "CPython's sampler"))) +
              "; without a profiler %s MiB in %s processes" % (
                  "n/a" if base is None else "%.1f" % (base / 1024),
                  "n/a" if procs is None else "%d" % procs),
              "pyprof < theirs", "n/a" if not ok else
              "PASS" if parts["pyprof"][0] < parts["theirs"][0] else "FAIL")


def run_all(b, figs):
    py = find_python315(b)
    if not py:
        for f in FIGURES:
            if f in figs:
                b.add(f, "pyprof vs CPython's sampler", "n/a", "",
                      "n/a (no python3.15: see the README's CPython section)")
        return
    probe = b.run([py, "-c", "import profiling.sampling"])
    if probe.rc != 0:
        b.add(7, "pyprof vs CPython's sampler", "n/a", "",
              "n/a (%s has no profiling.sampling)" % py)
        return
    if "7" in figs:
        side_by_side(b, py)
    if "7b" in figs:
        loaded(b, py)
    if "7t" in figs:
        tree(b, py)
    if "7m" in figs:
        memory(b, py)
