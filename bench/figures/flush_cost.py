"""Figure 4 (flush part): one flush written through the fd the sampler
keeps in its private fd table, against opening, checking and closing the
file at every flush (the fallback where the kernel refuses a private
table), for a small and a typical flush (bench/pp-flushfd).
"""
import re
import subprocess

from harness import fmt_ns

FIGURES = ("4",)


def run(b):
    rounds = 500 if b.quick else 3000
    for size in (512, 8192):
        r = subprocess.run([b.tool["pp-flushfd"], b.tmp, str(size), str(rounds)],
                           capture_output=True, text=True)
        v = {k: int(x) for k, x in re.findall(r"(\w+) (\d+)", r.stdout)}
        if "kept_ns" not in v:
            b.notes.append("pp-flushfd failed: " + r.stderr.strip()[:200])
            return
        add = v["reopen_ns"] - v["kept_ns"]
        flushes = 1000 / 200.0
        b.add(4, "flush of %d B: open+fstat+write+close vs write" % size,
              "%s vs %s (+%s, %.4f %% of a CPU at 5 flushes/s)" % (
                  fmt_ns(v["reopen_ns"]), fmt_ns(v["kept_ns"]), fmt_ns(add),
                  add * flushes / 1e9 * 100),
              "", "n/a")


def run_all(b, figs):
    run(b)
