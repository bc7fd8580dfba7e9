"""The bench harness: runs workloads with and without the preload,
alternating configurations, and collects the table's rows.

Each figure lives in its own module under bench/figures/ and receives one
Bench; bench/run.py chooses the figures and prints the table.
"""
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


def log(msg):
    sys.stderr.write("[bench %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def version_of(py):
    """The interpreter's version, as platform.python_version() says it."""
    return subprocess.run([py, "-c", "import platform;print(platform.python_version())"],
                          capture_output=True, text=True).stdout.strip()


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
                     for t in ("pp-dump", "pp-gen", "pp-spawn", "pp-waker",
                               "pp-flushfd")}
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

    def run_waited(self, argv, env, timeout, stdout, stderr):
        """Runs argv in its own session and reaps it with wait4, whose
        rusage is argv's own and that of every descendant it waited for
        (RUSAGE_CHILDREN would be a maximum over all our children); kills
        the session at the timeout.  Returns (rc, wall, rusage, timed_out)."""
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, env=env or self.base_env(), cwd=self.tmp,
                             stdout=stdout, stderr=stderr, start_new_session=True)
        deadline, timed_out = t0 + timeout, False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.002)
        wall = time.perf_counter() - t0
        # Reaped here, not by Popen: tell it, so that it never waits again.
        p.returncode = os.waitstatus_to_exitcode(status) if hasattr(
            os, "waitstatus_to_exitcode") else (status >> 8)
        return p.returncode, wall, ru, timed_out

    def run_rss(self, argv, env=None, timeout=600):
        """Runs argv with stdout to /dev/null; returns (rc, wall, maxrss_kb, err)."""
        errf = tempfile.TemporaryFile()
        with open(os.devnull, "wb") as null:
            rc, wall, ru, _ = self.run_waited(argv, env, timeout, null, errf)
        errf.seek(0)
        err = errf.read().decode(errors="replace")
        return rc, wall, ru.ru_maxrss, err

    def run_cpu(self, argv, env=None, timeout=300):
        """Like run(), and the CPU time (user + system, seconds) of argv and
        every descendant it waited for: a profiler process that waits for
        its target is counted with it."""
        outf, errf = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        rc, wall, ru, timed_out = self.run_waited(argv, env, timeout, outf, errf)
        outf.seek(0)
        errf.seek(0)
        r = Run(rc, outf.read().decode(errors="replace"),
                errf.read().decode(errors="replace"), wall, ru.ru_maxrss, timed_out)
        r.cpu = ru.ru_utime + ru.ru_stime
        return r

    def run_parallel(self, argvs, envs, timeout=300):
        """Starts every argv at once (each with its env, None for the
        plain one) and waits for all; returns their Runs in order."""
        procs = []
        for argv, env in zip(argvs, envs):
            procs.append(subprocess.Popen(argv, env=env or self.base_env(), cwd=self.tmp,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          start_new_session=True))
        runs = []
        for p in procs:
            try:
                out, err = p.communicate(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                timed_out = True
            runs.append(Run(p.returncode, out.decode(errors="replace"),
                            err.decode(errors="replace"), None, None, timed_out))
        return runs

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

    # ------------------------------------------------------------ shared by figures
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
