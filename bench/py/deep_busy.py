"""The "deep_busy" workload: a recursion DEPTH frames deep (900 by default)
that then runs at the bottom, calling a small function over and over, so
every sample sees the same deep stack under a top that keeps changing:
what 3.15's frame cache is for (deep_static sleeps instead).

    python deep_busy.py SECONDS [DEPTH]
"""
import sys
import time

sys.setrecursionlimit(5000)


def leaf(i):
    return i * i


def work(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        for i in range(1000):
            n += leaf(i)
    return n


def down(n, seconds):
    if n <= 1:
        return work(seconds)
    return down(n - 1, seconds)


if __name__ == "__main__":
    down(int(sys.argv[2]) if len(sys.argv) > 2 else 900,
         float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
