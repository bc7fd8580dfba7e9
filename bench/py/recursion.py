"""Deep recursion: walks down 600 frames and back, many times.

    python recursion.py N      (N = repetitions; prints "elapsed SECONDS")
"""
import sys
import time

sys.setrecursionlimit(5000)


def descend(n):
    if n == 0:
        return 0
    return descend(n - 1) + 1


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main(reps):
    total = 0
    for _ in range(reps):
        total += descend(600)
        total += fib(12)
    return total


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    t0 = time.perf_counter()
    main(reps)
    print("elapsed %.6f" % (time.perf_counter() - t0))
