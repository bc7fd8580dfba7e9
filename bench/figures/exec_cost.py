"""Figure 6: what the preload adds to an exec of /bin/true and of
`python -c pass` (bench/pp-spawn, alternating runs).  Figure 6b: what it
adds to each fork child of a sampled Python program that execs or exits at
once (bench/py/fork_children.py: fork+exec, fork+_exit, subprocess with
preexec_fn and its PATH search, a multiprocessing fork), plainly and
profiled at 100 Hz and 10 kHz, configurations alternating, and beside
them its floor: bench/pp-lodger.so's thread alone in every process (made at
start and in each fork child, woken at 100 Hz or 10 kHz, reading nothing; the
program a child execs is not lodged in, so an exec's floor leaves out the
preload's own load into it), and that thread with a file made at each
child's _exit in a directory of the same disk, as pyprof's profiled runs
write theirs: the floor of any profiler that writes a file per process.
"""
import os
import re
import subprocess

from harness import PY_DIR, fmt_ns, median

FIGURES = ("6", "6b")


def run(b):
    n_true = 100 if b.quick else 300
    n_py = 15 if b.quick else 40
    out = b.outdir("spawn")
    env = b.base_env()
    env.update(PYPROF_OUT=out, PYPROF_HZ=str(b.hz_default))

    def spawn(n, argv):
        r = subprocess.run([b.tool["pp-spawn"], str(n), b.lib] + argv, env=env,
                           capture_output=True, text=True, cwd=b.tmp)
        return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", r.stdout)}

    t = spawn(n_true, ["/bin/true"])
    files = os.listdir(out)
    add = t.get("added_ns")
    b.add(6, "exec /bin/true, added by the preload",
             "%s (%s vs %s; %d files written)" % (fmt_ns(add), fmt_ns(t.get("with_ns")),
                                                 fmt_ns(t.get("without_ns")), len(files)),
             "<= 0.2 ms", "n/a" if add is None else
             "PASS" if add <= 200000 and not files and not t.get("failures") else "FAIL")
    p = spawn(n_py, [b.py, "-c", "pass"])
    files = os.listdir(out)
    add = p.get("added_ns")
    verdict = ("n/a" if add is None else "PASS" if add <= 2000000 else "FAIL")
    if b.sampler_ok and verdict != "n/a":
        verdict += " (sampler not active yet)"
    b.add(6, "python -c pass, added by the preload",
             "%s (%s vs %s; %d files for %d runs)" % (
                 fmt_ns(add), fmt_ns(p.get("with_ns")), fmt_ns(p.get("without_ns")),
                 len(files), n_py + 1),
             "<= 2 ms", verdict)

def floor_env(b, lodger, hz, exit_dir=None):
    # A thread alone in every process, woken at the sampler's rate: the
    # floor of any in-process sampler (pyprof(7), "Timing and cost").
    # exit_dir: and a file made there by each fork child's _exit.
    env = b.base_env()
    env.update(LD_PRELOAD=lodger, PP_LODGER_HZ=str(hz), PP_LODGER_SPIN_US="0",
               PP_LODGER_FORKS="1")
    if exit_dir:
        env.update(PP_LODGER_EXIT_FILE=exit_dir)
    return env


def fork_children(b):
    n = 30 if b.quick else 100
    script = os.path.join(PY_DIR, "fork_children.py")
    configs = [("plain", None), ("100 Hz", 100), ("10 kHz", 10000)]
    lodger = os.path.join(b.build, "bench", "pp-lodger.so")
    if os.path.exists(lodger):
        configs += [("a thread alone, 100 Hz", "floor 100"),
                    ("a thread alone, 10 kHz", "floor 10000"),
                    ("a thread and a file at _exit, 100 Hz", "filed 100"),
                    ("a thread and a file at _exit, 10 kHz", "filed 10000")]
    for kind in ("exec", "exit", "preexec", "mp"):
        got = {c: [] for c, _ in configs}
        for rep in range(b.reps):
            k = rep % len(configs)
            order = configs[k:] + configs[:k]
            for name, hz in order:
                if isinstance(hz, str):
                    what, rate = hz.split()
                    env = floor_env(b, lodger, int(rate),
                                    b.outdir("floor-files") if what == "filed" else None)
                else:
                    env = b.prof_env(hz, b.outdir("forks")) if hz else b.base_env()
                r = b.run([b.py, script, kind, str(n)], env=env)
                if r.rc == 0 and r.out.strip().isdigit():
                    got[name].append(int(r.out))
        plain = median(got["plain"]) if got["plain"] else None
        for name, hz in configs[1:]:
            floor = isinstance(hz, str)
            label = "fork child (%s), added %s %s" % (kind, "by" if floor else "at", name)
            if plain is None or not got[name]:
                b.add("6b", label, "n/a", "floor" if floor else "<= 0.3 ms", "n/a")
                continue
            add = median(got[name]) - plain
            b.add("6b", label,
                  "%s (%s vs %s a child)" % (fmt_ns(add), fmt_ns(median(got[name])),
                                             fmt_ns(plain)),
                  "floor" if floor else "<= 0.3 ms",
                  "info" if floor else "PASS" if add <= 300000 else "FAIL")


def run_all(b, figs):
    if "6" in figs:
        run(b)
    if "6b" in figs:
        fork_children(b)
