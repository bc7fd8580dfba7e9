"""The "deep_wait" workload: THREADS threads (4 by default) each asleep
under a recursion DEPTH frames deep (300 by default) while the main thread
calls a small function over and over: a pool of idle workers beside one
that runs.  The sleepers never take the GIL, so their stacks cannot change
between samples (pyprof(7), "Consistent stacks").

    python deep_wait.py SECONDS [THREADS [DEPTH]]
"""
import sys
import threading
import time

sys.setrecursionlimit(5000)


def leaf(i):
    return i * i


def down(n, seconds):
    if n <= 1:
        time.sleep(seconds)
        return 1
    return down(n - 1, seconds)


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    nthreads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    threads = [threading.Thread(target=down, args=(depth, seconds))
               for _ in range(nthreads)]
    for t in threads:
        t.start()
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        for i in range(1000):
            n += leaf(i)
    for t in threads:
        t.join()
