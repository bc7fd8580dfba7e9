#!/usr/bin/env python3
"""pyprof benchmark suite (issue 4): prints one table and writes it to a file.

    make bench                     # from a build directory
    make bench BENCH_ARGS=--quick  # or: make bench-quick
    python3 bench/run.py BUILD_DIR [--quick] [--python PATH]
                           [--figures 1,2,...] [--reps N] [--out FILE]
                           [--no-perf] [--no-other-pythons]

Each figure is the median of several runs in which the configurations
being compared alternate (rotating order), so that the drift of a shared,
noisy machine hits all of them alike; overheads are medians of per-round
ratios.  Sampler counters (samples, rejected, missed ticks, sampler CPU
time, ticks) come from the profile files themselves, decoded by
bench/pp-dump (pyprof-merge's JSON does not carry them).  Figures the
product cannot produce yet say "n/a (reason)".

This script runs under any python3 >= 3.7; the workloads run under
--python (default /root/.pyenv/versions/3.12.1/bin/python).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY_DIR = os.path.join(HERE, "py")
SRC = os.path.dirname(HERE)
DEFAULT_PY = "/root/.pyenv/versions/3.12.1/bin/python"
OTHER_PYS = ["/root/.pyenv/versions/%s/bin/python" % v
             for v in ("3.10.13", "3.11.7", "3.12.1", "3.13.0")]
# Figure 8 also takes these when present (static builds, newer glibc).
NEWER_PYS = ["/usr/bin/python3.11"] + [
    "/var/cache/pyprof-pythons/root/usr/bin/python3.%d" % m for m in (14, 15)]


def log(msg):
    sys.stderr.write("[bench %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pct(x):
    return "n/a" if x is None else "%+.1f %%" % (100.0 * x)


def fmt_ns(ns):
    if ns is None:
        return "n/a"
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f us" % (ns / 1e3)
    return "%.0f ns" % ns


def default_hz():
    try:
        with open(os.path.join(SRC, "preload", "config.h")) as f:
            m = re.search(r"#define\s+PP_DEFAULT_HZ\s+(\d+)", f.read())
            return int(m.group(1)) if m else 100
    except OSError:
        return 100


class Run:
    """Result of one child process."""

    def __init__(self, rc, out, err, wall, rss_kb, timed_out):
        self.rc, self.out, self.err = rc, out, err
        self.wall, self.rss_kb, self.timed_out = wall, rss_kb, timed_out

    def value(self, key):
        m = re.search(r"^%s (\S+)$" % re.escape(key), self.out, re.M)
        return m.group(1) if m else None


class Bench:
    def __init__(self, a):
        self.a = a
        self.quick = a.quick
        self.build = os.path.abspath(a.build)
        self.lib = os.path.join(self.build, ".libs", "libpyprof.so")
        self.merge = os.path.join(self.build, "pyprof-merge")
        self.tool = {t: os.path.join(self.build, "bench", t)
                     for t in ("pp-dump", "pp-gen", "pp-spawn", "pp-waker")}
        self.py = a.python
        self.tmp = tempfile.mkdtemp(prefix="pyprof-bench-")
        self.rows = []
        self.notes = []
        self.hz_default = default_hz()
        self.sampler_ok = None     # reason string when the sampler is not usable
        self.merge_ok = None
        self.reps = a.reps or (3 if self.quick else 7)

    # ------------------------------------------------------------ running
    def base_env(self):
        env = {k: v for k, v in os.environ.items()
               if k != "LD_PRELOAD" and not k.startswith("PYPROF_")}
        env["PYTHONHASHSEED"] = "0"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def prof_env(self, hz, out):
        env = self.base_env()
        env.update(LD_PRELOAD=self.lib, PYPROF_HZ=str(hz), PYPROF_OUT=out,
                   PYPROF_LOG="0")
        return env

    def run(self, argv, env=None, timeout=120, cwd=None):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, env=env or self.base_env(), cwd=cwd or self.tmp,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        timed_out = False
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        wall = time.perf_counter() - t0
        # communicate() reaped the child; its peak RSS is in RUSAGE_CHILDREN
        # only as a maximum over all children, so measure RSS via wait4 in
        # run_rss() where it matters.
        return Run(p.returncode, out.decode(errors="replace"),
                   err.decode(errors="replace"), wall, None, timed_out)

    def run_rss(self, argv, env=None, timeout=600):
        """Runs argv with stdout to /dev/null; returns (rc, wall, maxrss_kb, err)."""
        errf = tempfile.TemporaryFile()
        with open(os.devnull, "wb") as null:
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, env=env or self.base_env(), cwd=self.tmp,
                                 stdout=null, stderr=errf, start_new_session=True)
            deadline = t0 + timeout
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    os.killpg(p.pid, signal.SIGKILL)
                    pid, status, ru = os.wait4(p.pid, 0)
                    break
                time.sleep(0.005)
            wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status) if hasattr(
            os, "waitstatus_to_exitcode") else (status >> 8)
        errf.seek(0)
        err = errf.read().decode(errors="replace")
        return p.returncode, wall, ru.ru_maxrss, err

    def outdir(self, name):
        d = os.path.join(self.tmp, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def dump(self, files, steady=False):
        if not files:
            return []
        argv = [self.tool["pp-dump"]] + (["-s"] if steady else []) + files
        r = self.run(argv, timeout=300)
        res = []
        for line in r.out.splitlines():
            d = {}
            for kv in line.split(" "):
                k, _, v = kv.partition("=")
                d[k] = int(v) if v.isdigit() else v
            res.append(d)
        return res

    def profile_files(self, d):
        return sorted(os.path.join(d, f) for f in os.listdir(d)
                      if f.endswith(".zst"))

    def profiled(self, argv, hz, steady=False, timeout=300):
        """Runs argv under the preload; returns (Run, summed counters)."""
        out = self.outdir("prof")
        r = self.run(argv, env=self.prof_env(hz, out), timeout=timeout)
        stats = self.dump(self.profile_files(out), steady)
        tot = {}
        for s in stats:
            for k, v in s.items():
                if isinstance(v, int):
                    tot[k] = tot.get(k, 0) + v
        tot["nfiles"] = len(stats)
        return r, tot

    def add(self, fig, what, result, target="", verdict=""):
        self.rows.append((str(fig), what, result, target, verdict))

    # ------------------------------------------------------------ probes
    def probe(self):
        for name, path in [("libpyprof.so", self.lib)] + list(self.tool.items()):
            if not os.path.exists(path):
                sys.exit("bench: %s not found in %s (run make bench from the "
                         "build directory)" % (name, self.build))
        r, tot = self.profiled([self.py, os.path.join(PY_DIR, "busy.py"), "0.5"], 1000)
        if r.rc != 0:
            self.sampler_ok = "workload fails under the preload (rc %s: %s)" % (
                r.rc, (r.err.strip().splitlines() or ["?"])[-1][:60])
        elif tot["nfiles"] == 0:
            self.sampler_ok = "preload wrote no profile file for CPython"
        elif tot.get("samples", 0) == 0:
            self.sampler_ok = "profile file holds no samples (reader not landed?)"
        log("sampler probe: %s" % (self.sampler_ok or "ok (%d samples)" % tot["samples"]))
        if not os.path.exists(self.merge):
            self.merge_ok = "pyprof-merge not built"
        else:
            d = self.outdir("mprobe")
            g = self.run([self.tool["pp-gen"], d, "3", "3000"])
            if g.rc != 0:
                sys.exit("bench: pp-gen failed: " + g.err)
            jf = os.path.join(self.tmp, "probe.json")
            m = self.run([self.merge, "--format", "json", "-o", jf, d], timeout=60)
            try:
                with open(jf) as f:
                    doc = json.load(f)
                n = doc["totals"]["samples"]
                if n != 3000:
                    self.merge_ok = "merge counts %s of 3000 samples" % n
            except Exception as e:  # noqa: BLE001 -- any failure means n/a
                why = (m.err.strip().splitlines() or [str(e)])[-1][:60]
                self.merge_ok = "pyprof-merge not working yet (rc %s: %s)" % (m.rc, why)
        log("merge probe: %s" % (self.merge_ok or "ok"))

    # ------------------------------------------------------------ figure 1 + 7
    def calibrate(self, py, wl, target_s):
        n = 4
        while True:
            r = self.run([py, os.path.join(PY_DIR, wl + ".py"), str(n)])
            t = float(r.value("elapsed") or 0)
            if r.rc != 0:
                raise RuntimeError("%s failed: %s" % (wl, r.err[-300:]))
            if t > 0.15 or n > 10 ** 7:
                break
            n *= 4
        return max(1, int(n * target_s / t))

    def wrappers(self):
        """Other profilers of figure 7: name -> argv prefix (or None)."""
        w = {}
        austin = shutil.which("austin")
        w["austin"] = [austin, "-i", "1000", "-o", os.devnull] if austin else None
        pyspy = shutil.which("py-spy")
        w["py-spy"] = ([pyspy, "record", "-r", "100", "--nonblocking", "-o",
                        os.path.join(self.tmp, "pyspy.txt"), "-f", "raw", "--"]
                       if pyspy else None)
        return w

    def with_waker(self, hz, argv):
        """Runs argv while another process does nothing but wake a thread
        hz times a second (bench/pp-waker): the machine's own cost of a
        timer-driven sampler at that rate, with no stack read at all."""
        w = subprocess.Popen([self.tool["pp-waker"], "sleep", str(hz), "3600"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            time.sleep(0.05)
            return self.run(argv)
        finally:
            w.kill()
            w.wait()

    def overhead(self, py, workloads, rates, reps, target_s, label="", extra=True):
        configs = ["off"] + ["hz%d" % h for h in rates]
        if extra:
            configs += ["wake%d" % h for h in rates]
        prefix = {}
        if extra:
            configs.append("cprofile")
            for name, argv in self.wrappers().items():
                if argv:
                    configs.append(name)
                    prefix[name] = argv
        sizes = {}
        for wl in workloads:
            sizes[wl] = self.calibrate(py, wl, target_s)
            log("%s%s: %d units for ~%.1f s" % (label, wl, sizes[wl], target_s))
        times = {(wl, c): [] for wl in workloads for c in configs}
        sampler = {(wl, c): [] for wl in workloads for c in configs}
        for rep in range(reps):
            order = configs[rep % len(configs):] + configs[:rep % len(configs)]
            if rep % 2:
                order.reverse()
            for wl in workloads:
                script = os.path.join(PY_DIR, wl + ".py")
                for c in order:
                    argv = [py, script, str(sizes[wl])]
                    if c == "off":
                        r = self.run(argv)
                    elif c.startswith("hz"):
                        r, tot = self.profiled(argv, int(c[2:]))
                        sampler[wl, c].append(tot)
                    elif c.startswith("wake"):
                        r = self.with_waker(int(c[4:]), argv)
                    elif c == "cprofile":
                        env = self.base_env()
                        env["BENCH_CPROFILE_DIR"] = self.outdir("cprof")
                        r = self.run([py, os.path.join(PY_DIR, "cprof_run.py")] + argv[1:],
                                     env=env)
                        mode = r.value("cprofile_mode")
                        if mode:
                            self.cprofile_mode = mode
                    else:
                        r = self.run(prefix[c] + argv)
                    e = r.value("elapsed")
                    times[wl, c].append(float(e) if r.rc == 0 and e else None)
            log("%soverhead round %d/%d done" % (label, rep + 1, reps))
        return configs, times, sampler

    @staticmethod
    def ratio(times, wl, c):
        pairs = [(a, b) for a, b in zip(times[wl, "off"], times[wl, c])
                 if a and b]
        if not pairs:
            return None
        return statistics.median(b / a for a, b in pairs) - 1.0

    def fig1(self):
        wls = ["recursion", "objects", "generators", "mixed16"]
        rates = sorted({self.hz_default, 1000, 10000})
        target_s = 0.4 if self.quick else 1.5
        self.cprofile_mode = None
        configs, times, sampler = self.overhead(self.py, wls, rates, self.reps, target_s)
        for wl in wls:
            base = median(times[wl, "off"])
            offs = [t for t in times[wl, "off"] if t]
            noise = (statistics.pstdev(offs) / base) if base and len(offs) > 1 else None
            for h in rates:
                c = "hz%d" % h
                ov = self.ratio(times, wl, c)
                tgt = 0.03 if h >= 10000 else 0.01
                smp = median([t.get("samples") for t in sampler[wl, c]]) or 0
                cpu = median([t.get("cpu_ns") for t in sampler[wl, c]]) or 0
                m = median(times[wl, c])
                res = "%s (%.3f s vs %.3f s; sd %.1f %%; %d samples, sampler %.1f ms CPU)" % (
                    pct(ov), m or 0, base or 0, 100 * (noise or 0), smp, cpu / 1e6)
                if self.sampler_ok:
                    verdict = "n/a (%s)" % self.sampler_ok
                elif ov is None:
                    verdict = "n/a (runs failed)"
                else:
                    verdict = "PASS" if ov <= tgt else "FAIL"
                name = "%d Hz%s" % (h, " (default)" if h == self.hz_default else "")
                self.add(1, "overhead %s @ %s" % (wl, name), res,
                         "<= %d %%" % round(tgt * 100), verdict)
                fl = self.ratio(times, wl, "wake%d" % h)
                self.add(1, "  machine floor: another process only waking @ %d Hz" % h,
                         pct(fl) if fl is not None else "n/a", "", "info")
        for c in configs:
            if c == "off" or c.startswith("hz") or c.startswith("wake"):
                continue
            parts = []
            for wl in wls:
                ov = self.ratio(times, wl, c)
                parts.append("%s x%.2f" % (wl, 1 + ov) if ov is not None
                             else "%s failed" % wl)
            what = "cProfile per thread" if c == "cprofile" else c
            if c == "cprofile" and self.cprofile_mode == "shared":
                what += " (3.12+: one profiler, see note)"
                self.notes.append(
                    "cProfile on Python 3.12+ uses sys.monitoring, one tool per "
                    "interpreter: the article's per-thread Profile.enable() raises "
                    "'Another profiling tool is already active', so threads ran "
                    "under the main thread's profiler.")
            self.add(7, "%s / none" % what, "; ".join(parts), "ratio", "info")
        for name, argv in self.wrappers().items():
            if not argv:
                self.add(7, "%s / none" % name, "not installed", "ratio", "n/a")
        # pyprof's own ratio at the default rate, for comparison in figure 7.
        parts = ["%s x%.2f" % (wl, 1 + self.ratio(times, wl, "hz%d" % self.hz_default))
                 for wl in wls if self.ratio(times, wl, "hz%d" % self.hz_default) is not None]
        self.add(7, "pyprof @ %d Hz / none" % self.hz_default, "; ".join(parts) or "n/a",
                 "ratio", "info")

    def fig1b(self):
        """The same overhead on the other interpreters (full mode)."""
        wls = ["recursion", "objects"]
        for py in OTHER_PYS:
            if not os.path.exists(py) or os.path.realpath(py) == os.path.realpath(self.py):
                continue
            ver = subprocess.run([py, "-c", "import platform;print(platform.python_version())"],
                                 capture_output=True, text=True).stdout.strip()
            rates = sorted({self.hz_default, 1000})
            _, times, sampler = self.overhead(py, wls, rates, 5, 0.8,
                                              label="[%s] " % ver, extra=False)
            for h in rates:
                c = "hz%d" % h
                parts, ok = [], True
                for wl in wls:
                    ov = self.ratio(times, wl, c)
                    smp = median([t.get("samples") for t in sampler[wl, c]]) or 0
                    parts.append("%s %s (%d samples)" % (wl, pct(ov), smp))
                    ok = ok and ov is not None and ov <= 0.01
                    if not smp:
                        ok = None
                verdict = ("n/a (no samples on %s)" % ver if ok is None
                           else "PASS" if ok else "FAIL")
                self.add("1b", "overhead Python %s @ %d Hz" % (ver, h), "; ".join(parts),
                         "<= 1 %", verdict)

    # ------------------------------------------------------------ figures 2, 4
    def fig2(self):
        dur = 1.5 if self.quick else 4.0
        hz = 1000
        reps = max(3, self.reps - 2) if not self.a.reps else self.reps
        # "threads" is the seed's: 5 threads at first, then 5..100 at random;
        # "threads xN" keeps N threads for the whole run.
        wls = ["basic", "deep_static", "threads", "threads x5", "threads x100"]
        res = {w: [] for w in wls}
        for rep in range(reps):
            order = wls[rep % len(wls):] + wls[:rep % len(wls)]
            for wl in order:
                script, _, n = wl.partition(" x")
                argv = [self.py, os.path.join(PY_DIR, script + ".py"), str(dur)]
                r, tot = self.profiled(argv + ([n] if n else []), hz, steady=True)
                if r.rc == 0:
                    res[wl].append(tot)
            log("cost round %d/%d done" % (rep + 1, reps))
        targets = {w: 1000 for w in wls}
        targets["deep_static"] = 2000
        self.bytes_rows = []
        for wl in wls:
            runs = [t for t in res[wl] if t.get("samples")]
            if self.sampler_ok or not runs:
                self.add(2, "cost per thread-sample, %s @ %d Hz" % (wl, hz), "n/a",
                         "<= %s" % fmt_ns(targets[wl]),
                         "n/a (%s)" % (self.sampler_ok or "no samples"))
                self.add(4, "bytes per sample on disk, %s" % wl, "n/a", "<= 4",
                         "n/a (%s)" % (self.sampler_ok or "no samples"))
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
            self.add(2, "cost per thread-sample, %s @ %d Hz" % (wl, hz),
                     "%s steady, %s whole run (%.1f threads/tick, sampler %.1f %% of a CPU,"
                     " rejected %d, missed %d)"
                     % (fmt_ns(cost), fmt_ns(whole_cost), tps, 100 * share, rej, miss),
                     "<= %s" % fmt_ns(targets[wl]), "PASS" if cost <= targets[wl] else "FAIL")
            if intick is not None:
                self.add(2, "  inside ticks only (wake-up excluded: %s per tick)" % fmt_ns(wake),
                         fmt_ns(intick), "<= %s" % fmt_ns(targets[wl]),
                         "PASS" if intick <= targets[wl] else "FAIL")
            steady = median([t["steady_bytes"] / t["steady_samples"] for t in runs
                             if t.get("steady_samples")])
            whole = median([t["size"] / t["samples"] for t in runs])
            self.add(4, "bytes per sample on disk, %s" % wl,
                     "%.2f B steady (%.2f B whole file incl. tables)" % (
                         steady if steady is not None else float("nan"), whole),
                     "<= 4", "n/a" if steady is None else "PASS" if steady <= 4 else "FAIL")

    # ------------------------------------------------------------ figure 3
    def fig3(self):
        rates = [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000]
        dur = 1.0 if self.quick else 2.0
        reps = 3 if self.quick else 5
        if self.a.reps:
            reps = self.a.reps
        if self.sampler_ok:
            self.add(3, "highest rate, no missed ticks, 1 busy thread", "n/a",
                     ">= 100 kHz", "n/a (%s)" % self.sampler_ok)
            return
        miss = {h: [] for h in rates}
        cpu = {h: [] for h in rates}
        for rep in range(reps):
            order = rates if rep % 2 == 0 else rates[::-1]
            for h in order:
                r, tot = self.profiled([self.py, os.path.join(PY_DIR, "busy.py"), str(dur)], h)
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
        self.add(3, "highest rate, missed <= 0.1 %, 1 busy thread", res, ">= 100 kHz",
                 "PASS" if best and best >= 100000 else "FAIL")
        self.add(3, "  missed ticks by rate (median)", " ".join(parts), "", "info")
        # The same sweep for an empty loop: a thread that only waits for
        # the deadlines (polling above 20 kHz, sleeping below, as the
        # sampler does) beside one busy thread, in another process.
        floor = []
        for h in rates:
            ms = []
            for rep in range(reps):
                r = self.run([self.tool["pp-waker"], "poll" if h > 20000 else "sleep",
                              str(h), str(dur)])
                w, m = int(r.value("wakes") or 0), int(r.value("missed") or 0)
                if r.rc == 0 and w + m:
                    ms.append(m / (w + m))
            m = median(ms)
            floor.append("%dk:%s" % (h // 1000, "?" if m is None else "%.2g%%" % (100 * m)))
        self.add(3, "  machine floor: an empty loop's missed ticks", " ".join(floor), "", "info")

    # ------------------------------------------------------------ figure 8
    def fig8(self):
        """Rejected samples (stacks that changed while read) on the code
        whose stacks change fastest, per interpreter and rate."""
        dur = 1.5 if self.quick else 4.0
        pys = [p for p in OTHER_PYS + NEWER_PYS if os.path.exists(p)]
        if self.sampler_ok:
            self.add(8, "rejected samples", "n/a", "<= 1 %", "n/a (%s)" % self.sampler_ok)
            return
        for wl in ("fib", "generators", "threads"):
            for hz in (1000, 10000):
                parts, worst = [], 0.0
                for py in pys:
                    ver = subprocess.run([py, "-c", "import platform;"
                                          "print(platform.python_version())"],
                                         capture_output=True, text=True).stdout.strip()
                    arg = "%g" % dur if wl == "threads" else str(self.calibrate(py, wl, dur))
                    r, tot = self.profiled([py, os.path.join(PY_DIR, wl + ".py"), arg], hz)
                    n = tot.get("samples", 0) + tot.get("rejected", 0)
                    if r.rc != 0 or not n:
                        parts.append("%s n/a" % ver)
                        continue
                    share = tot["rejected"] / n
                    worst = max(worst, share)
                    parts.append("%s %.2f %% of %d" % (ver, 100 * share, n))
                log("rejects %s @ %d Hz: %s" % (wl, hz, "; ".join(parts)))
                self.add(8, "rejected, %s @ %d Hz" % (wl, hz), "; ".join(parts), "<= 1 %",
                         "PASS" if worst <= 0.01 else "FAIL")

    # ------------------------------------------------------------ figure 5
    def fig5(self):
        nfiles = 100 if self.quick else 1000
        big = 5000000 if self.quick else 50000000
        small = big // 10
        label = "%d files" % nfiles
        if self.merge_ok:
            self.add(5, "merge throughput, %s, %d M samples" % (label, big // 10 ** 6), "n/a",
                     ">= 20 M/s", "n/a (%s)" % self.merge_ok)
            self.add(5, "merge peak RSS %d M vs %d M samples" % (small // 10 ** 6, big // 10 ** 6),
                     "n/a", "no growth", "n/a (%s)" % self.merge_ok)
            return
        dirs = {}
        for n in (small, big):
            d = os.path.join(self.tmp, "merge%d" % n)
            t0 = time.perf_counter()
            g = self.run([self.tool["pp-gen"], d, str(nfiles), str(n), "7"], timeout=900)
            if g.rc != 0:
                sys.exit("bench: pp-gen failed: " + g.err)
            log("generated %s in %.1f s: %s" % (d, time.perf_counter() - t0, g.out.strip()))
            dirs[n] = d
        reps = 3 if self.quick else 5
        walls = {small: [], big: []}
        rss = {small: [], big: []}
        errs = []
        for rep in range(reps):
            for n in ((small, big) if rep % 2 == 0 else (big, small)):
                rc, wall, maxrss, err = self.run_rss([self.merge, dirs[n]], timeout=900)
                if rc == 0:
                    walls[n].append(wall)
                    rss[n].append(maxrss)
                else:
                    errs.append("rc %d: %s" % (rc, err.strip()[-80:]))
            log("merge round %d/%d done" % (rep + 1, reps))
            if rep == 1 and walls[big] and min(walls[big]) > 60:
                log("merge is slow: stopping after 2 rounds")
                break
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)
        if not walls[big] or not walls[small]:
            why = errs[0] if errs else "no run"
            self.add(5, "merge throughput, %s" % label, "n/a", ">= 20 M/s", "n/a (%s)" % why)
            return
        rate = big / median(walls[big])
        rate_s = small / median(walls[small])
        self.add(5, "merge throughput, %s, %d M samples" % (label, big // 10 ** 6),
                 "%.1f M samples/s (%.2f s; %d M: %.1f M/s)" % (
                     rate / 1e6, median(walls[big]), small // 10 ** 6, rate_s / 1e6),
                 ">= 20 M/s", "PASS" if rate >= 20e6 else "FAIL")
        r_small, r_big = median(rss[small]), median(rss[big])
        grow = r_big / r_small
        self.add(5, "merge peak RSS %d M vs %d M samples" % (small // 10 ** 6, big // 10 ** 6),
                 "%.1f MiB vs %.1f MiB (x%.2f)" % (r_small / 1024, r_big / 1024, grow),
                 "no growth (<= x1.2)", "PASS" if grow <= 1.2 else "FAIL")
        if errs:
            self.notes.append("merge failures: " + "; ".join(errs[:3]))

    # ------------------------------------------------------------ figure 6
    def fig6(self):
        n_true = 100 if self.quick else 300
        n_py = 15 if self.quick else 40
        out = self.outdir("spawn")
        env = self.base_env()
        env.update(PYPROF_OUT=out, PYPROF_HZ=str(self.hz_default))

        def spawn(n, argv):
            r = subprocess.run([self.tool["pp-spawn"], str(n), self.lib] + argv, env=env,
                               capture_output=True, text=True, cwd=self.tmp)
            return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", r.stdout)}

        t = spawn(n_true, ["/bin/true"])
        files = os.listdir(out)
        add = t.get("added_ns")
        self.add(6, "exec /bin/true, added by the preload",
                 "%s (%s vs %s; %d files written)" % (fmt_ns(add), fmt_ns(t.get("with_ns")),
                                                     fmt_ns(t.get("without_ns")), len(files)),
                 "<= 0.2 ms", "n/a" if add is None else
                 "PASS" if add <= 200000 and not files and not t.get("failures") else "FAIL")
        p = spawn(n_py, [self.py, "-c", "pass"])
        files = os.listdir(out)
        add = p.get("added_ns")
        verdict = ("n/a" if add is None else "PASS" if add <= 2000000 else "FAIL")
        if self.sampler_ok and verdict != "n/a":
            verdict += " (sampler not active yet)"
        self.add(6, "python -c pass, added by the preload",
                 "%s (%s vs %s; %d files for %d runs)" % (
                     fmt_ns(add), fmt_ns(p.get("with_ns")), fmt_ns(p.get("without_ns")),
                     len(files), n_py + 1),
                 "<= 2 ms", verdict)

    # ------------------------------------------------------------ perf
    def sampler_tid(self, pid):
        """The sampler is the first thread the process created (the
        constructor starts it before Python runs)."""
        best = None
        for t in os.listdir("/proc/%d/task" % pid):
            tid = int(t)
            if tid == pid:
                continue
            with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
                start = int(f.read().rsplit(")", 1)[1].split()[19])
            if best is None or (start, tid) < best:
                best = (start, tid)
        return best[1] if best else None

    def perf_profile(self, wl, hz, dur):
        """perf record of the sampler thread alone; returns {category: share}."""
        out = self.outdir("perf")
        argv = [self.py, os.path.join(PY_DIR, wl + ".py"), str(dur + 3)]
        p = subprocess.Popen(argv, env=self.prof_env(hz, out), cwd=self.tmp,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            time.sleep(1.0)
            tid = self.sampler_tid(p.pid)
            if not tid:
                return None, "no sampler thread"
            data = os.path.join(self.tmp, "perf.data")
            r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "20000", "-g",
                                "-t", str(tid), "-o", data, "--", "sleep", str(dur)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                return None, "perf record failed: " + r.stderr.strip()[-80:]
            st = subprocess.run(["timeout", "-s", "INT", "1.5", "strace", "-c", "-p", str(tid)],
                                capture_output=True, text=True)
        finally:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        sc = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                            capture_output=True, text=True).stdout
        cats, syms, total = {}, {}, 0
        for block in sc.split("\n\n"):
            lines = [l.strip() for l in block.strip().splitlines() if l.strip()]
            if not lines:
                continue
            total += 1
            leaf = lines[0].split(None, 1)[1] if " " in lines[0] else lines[0]
            stack = " ".join(lines)
            syms[leaf] = syms.get(leaf, 0) + 1
            if "libzstd" in stack and "kallsyms" not in lines[0]:
                c = "zstd compression"
            elif "ksys_write" in stack or "vfs_write" in stack:
                c = "write(2) syscall"
            elif "kallsyms" in lines[0] and ("clock_gettime" in stack or "posix_cpu" in stack
                                            or "cpu_clock" in stack):
                c = "clock_gettime syscall"
            elif "kallsyms" in lines[0] and ("sigtimedwait" in stack or "sigwait" in stack):
                c = "sigwaitinfo / timer wake-up"
            elif "kallsyms" in lines[0] and "process_vm" in stack:
                c = "process_vm_readv syscall"
            elif "kallsyms" in lines[0] and ("openat" in stack or "ksys_read" in stack
                                            or "__x64_sys_close" in stack):
                c = "open/read/close syscalls"
            elif "kallsyms" in lines[0]:
                m = re.search(r"__x64_sys_(\w+)", stack)
                c = "kernel: %s" % (m.group(1) if m else "other (irq, scheduling)")
            elif "libpyprof" in lines[0]:
                c = "pyprof code (user)"
            else:
                m = re.search(r"\((\S+)\)$", lines[0])
                c = "user: %s" % os.path.basename(m.group(1)) if m else "user: other"
            cats[c] = cats.get(c, 0) + 1
        calls = {}
        for line in st.stderr.splitlines():
            f = line.split()
            # % time, seconds, usecs/call, calls, [errors,] syscall
            if len(f) >= 5 and f[-1] not in ("syscall", "total") and f[3].isdigit():
                calls[f[-1]] = int(f[3])
        return {"total": total, "cats": cats, "syms": syms, "calls": calls}, None

    def perf(self):
        if self.a.no_perf or not shutil.which("perf"):
            self.add(4, "share of sampler CPU in compress+write", "n/a (perf not run)", "", "info")
            return
        if self.sampler_ok:
            self.add(4, "share of sampler CPU in compress+write", "n/a", "", "n/a (%s)"
                     % self.sampler_ok)
            return
        dur = 2.0 if self.quick else 4.0
        self.perf_text = []
        for wl, hz in (("basic", 10000), ("threads", 1000), ("deep_static", 10000)):
            res, err = self.perf_profile(wl, hz, dur)
            if err:
                self.add(4, "share of sampler CPU in compress+write, %s" % wl, "n/a", "",
                         "n/a (%s)" % err)
                continue
            tot = max(1, res["total"])
            cw = res["cats"].get("zstd compression", 0) + res["cats"].get("write(2) syscall", 0)
            self.add(4, "share of sampler CPU in compress+write, %s @ %d Hz" % (wl, hz),
                     "%.1f %% (perf, %d samples of the sampler thread)" % (100 * cw / tot,
                                                                          res["total"]),
                     "info", "info")
            ticks = res["calls"].get("rt_sigtimedwait", 0)
            lines = ["%s @ %d Hz: %d perf samples (20 us each) of the sampler thread" % (
                wl, hz, res["total"])]
            for c, n in sorted(res["cats"].items(), key=lambda x: -x[1]):
                lines.append("    %5.1f %%  %s" % (100 * n / tot, c))
            lines.append("  top leaf symbols:")
            for s, n in sorted(res["syms"].items(), key=lambda x: -x[1])[:12]:
                lines.append("    %5.1f %%  %s" % (100 * n / tot, s))
            if ticks:
                per = ", ".join("%s %.2f" % (k, v / ticks) for k, v in
                                sorted(res["calls"].items(), key=lambda x: -x[1]))
                lines.append("  syscalls per tick (strace -c, %d ticks): %s" % (ticks, per))
            self.perf_text.append("\n".join(lines))

    # ------------------------------------------------------------ output
    def machine(self):
        model = "?"
        try:
            with open("/proc/cpuinfo") as f:
                m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
                model = m.group(1) if m else "?"
        except OSError:
            pass
        ver = subprocess.run([self.py, "-c", "import platform;print(platform.python_version())"],
                             capture_output=True, text=True).stdout.strip()
        head = subprocess.run(["git", "-C", SRC, "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True).stdout.strip()
        return [
            "pyprof benchmark (%s mode), %s" % ("quick" if self.quick else "full",
                                               datetime.datetime.now().astimezone()
                                               .strftime("%Y-%m-%d %H:%M %Z")),
            "machine: %s, %d cores, Linux %s, load %s" % (
                model, os.cpu_count(), platform.release(),
                " ".join("%.2f" % x for x in os.getloadavg())),
            "interpreter: %s (Python %s); default PYPROF_HZ %d; source %s" % (
                self.py, ver, self.hz_default, head),
            "method: medians of alternating rounds in rotating order (figure 1: %d, figures"
            " 2/3/5: %d); overheads are medians of per-round ratios; shared noisy 2-core VM:"
            " +-1-2 %% is within noise" % (self.reps, 3 if self.quick else 5),
        ]

    def table(self):
        hdr = ("#", "figure", "measured", "target", "verdict")
        w = [max(len(str(r[i])) for r in self.rows + [hdr]) for i in range(5)]
        w[2] = min(w[2], 100)
        lines = []

        def line(r):
            return " | ".join(str(r[i]).ljust(w[i]) for i in range(5)).rstrip()
        lines.append(line(hdr))
        lines.append("-+-".join("-" * x for x in w))
        for r in self.rows:
            lines.append(line(r))
        return lines

    def main(self):
        t0 = time.time()
        head = self.machine()
        for h in head:
            log(h)
        self.probe()
        figs = set(self.a.figures.split(",")) if self.a.figures else set("12345678")
        try:
            if figs & {"1", "7"}:
                self.fig1()
                if not self.quick and not self.a.no_other_pythons:
                    self.fig1b()
            if figs & {"2", "4"}:
                self.fig2()
            if "4" in figs:
                self.perf()
            if "3" in figs:
                self.fig3()
            if "5" in figs:
                self.fig5()
            if "6" in figs:
                self.fig6()
            if "8" in figs:
                self.fig8()
        finally:
            if not self.a.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
        self.rows.sort(key=lambda r: (r[0].rstrip("b"), r[0]))
        text = head + [""] + self.table()
        if self.notes:
            text += ["", "notes:"] + ["- " + n for n in self.notes]
        if getattr(self, "perf_text", None):
            text += ["", "where the sampler thread's CPU goes (perf record -t <sampler tid>,"
                     " cpu-clock every 20 us, kernel call chains; strace -c for syscall"
                     " counts):"] + self.perf_text
        text.append("")
        text.append("total bench time %.0f s" % (time.time() - t0))
        out = "\n".join(text) + "\n"
        sys.stdout.write(out)
        path = self.a.out or os.path.join(HERE, "results-%s.txt" %
                                          time.strftime("%Y-%m-%d-%H%M"))
        try:
            with open(path, "w") as f:
                f.write(out)
            print("table written to %s" % path)
        except OSError as e:
            print("cannot write %s: %s" % (path, e))


def parse_args():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("build_dir", nargs="?", help="build directory (default: .)")
    a.add_argument("--build", help="same as BUILD_DIR")
    a.add_argument("--python", default=DEFAULT_PY if os.path.exists(DEFAULT_PY)
                   else shutil.which("python3"), help="interpreter for the workloads")
    a.add_argument("--quick", action="store_true", help="fewer rounds, smaller workloads")
    a.add_argument("--figures", help="comma-separated subset, e.g. 1,6")
    a.add_argument("--reps", type=int, help="rounds per figure (default 7, quick 3)")
    a.add_argument("--out", help="table file (default bench/results-DATE.txt)")
    a.add_argument("--no-perf", action="store_true", help="skip the perf profile")
    a.add_argument("--no-other-pythons", action="store_true",
                   help="full mode: skip figure 1b on the other interpreters")
    a.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ns = a.parse_args()
    ns.build = ns.build or ns.build_dir or "."
    return ns


if __name__ == "__main__":
    Bench(parse_args()).main()
