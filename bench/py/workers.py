"""A pool of worker processes busy for a fixed time, the shape of a
pre-fork server or a multiprocessing pool: figure 7m measures the memory
a profiler adds to such a tree.

    python workers.py SECONDS [N]      (N workers, default 4)

Uses multiprocessing's default start method.  Prints "workers N" and
"work W" (units of work done by all workers).
"""
import multiprocessing
import sys
import time


def work(secs):
    end = time.monotonic() + secs
    n = 0
    while time.monotonic() < end:
        x = 0
        for i in range(2000):
            x += i * i
        n += 1
    return n


def main():
    secs = float(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    with multiprocessing.Pool(n) as pool:
        done = pool.map(work, [secs] * n)
    print("workers %d" % n)
    print("work %d" % sum(done))


if __name__ == "__main__":
    main()
