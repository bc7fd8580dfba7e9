"""Figure 6: what the preload adds to an exec of /bin/true and of
`python -c pass` (bench/pp-spawn, alternating runs).
"""
import os
import re
import subprocess

from harness import fmt_ns

FIGURES = ("6",)


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

def run_all(b, figs):
    run(b)
