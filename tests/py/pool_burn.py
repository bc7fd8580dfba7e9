"""A fork pool of 3 workers burning CPU for SECONDS each, then the parent
for a quarter of that: pool_burn.py SECONDS.  Prints "done" and a
checksum that does not depend on timing, so that a run under the preload
can be compared with a plain one."""
import multiprocessing
import sys
import time


def work(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += sum(i * i for i in range(200))
    return 1


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    with multiprocessing.get_context("fork").Pool(3) as pool:
        got = pool.map(work, [secs] * 3)
    work(secs / 4)
    print("done", sum(got))
