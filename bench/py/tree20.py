"""The tree figure's workload: 10 subprocess children, then 10
multiprocessing fork children, one after another, each busy for 60 ms.

    python tree20.py [MS]

Prints "children 20" and "elapsed SECONDS".
"""
import multiprocessing
import subprocess
import sys
import time

BUSY = """
import time
end = time.monotonic() + %f
n = 0
while time.monotonic() < end:
    n += 1
"""


def busy(seconds):
    exec(BUSY % seconds)


if __name__ == "__main__":
    ms = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    t0 = time.perf_counter()
    for _ in range(10):
        subprocess.run([sys.executable, "-c", BUSY % (ms / 1000)], check=True)
    ctx = multiprocessing.get_context("fork")
    for _ in range(10):
        p = ctx.Process(target=busy, args=(ms / 1000,))
        p.start()
        p.join()
    print("children 20")
    print("elapsed %f" % (time.perf_counter() - t0))
