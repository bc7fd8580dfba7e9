"""Figure 4 (perf part): where the sampler thread's CPU goes, from
`perf record -t <sampler tid>` by category, and `strace -c` syscalls per
tick.
"""
import os
import re
import shutil
import signal
import subprocess
import time

from harness import PY_DIR

FIGURES = ("4",)


def sampler_tid(b, pid):
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


def perf_profile(b, wl, hz, dur):
    """perf record of the sampler thread alone; returns {category: share}."""
    out = b.outdir("perf")
    argv = [b.py, os.path.join(PY_DIR, wl + ".py"), str(dur + 3)]
    p = subprocess.Popen(argv, env=b.prof_env(hz, out), cwd=b.tmp,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        time.sleep(1.0)
        tid = sampler_tid(b, p.pid)
        if not tid:
            return None, "no sampler thread"
        data = os.path.join(b.tmp, "perf.data")
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


def run(b):
    if b.a.no_perf or not shutil.which("perf"):
        b.add(4, "share of sampler CPU in compress+write", "n/a (perf not run)", "", "info")
        return
    if b.sampler_ok:
        b.add(4, "share of sampler CPU in compress+write", "n/a", "", "n/a (%s)"
                 % b.sampler_ok)
        return
    dur = 2.0 if b.quick else 4.0
    b.perf_text = []
    for wl, hz in (("basic", 10000), ("threads", 1000), ("deep_static", 10000)):
        res, err = perf_profile(b, wl, hz, dur)
        if err:
            b.add(4, "share of sampler CPU in compress+write, %s" % wl, "n/a", "",
                     "n/a (%s)" % err)
            continue
        tot = max(1, res["total"])
        cw = res["cats"].get("zstd compression", 0) + res["cats"].get("write(2) syscall", 0)
        b.add(4, "share of sampler CPU in compress+write, %s @ %d Hz" % (wl, hz),
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
        b.perf_text.append("\n".join(lines))

def run_all(b, figs):
    run(b)
