"""Fast recursion: fib(20) over and over, a stack that calls and returns
all the time (the hardest case for reading a stack while it runs).

    python fib.py N      (N = repetitions; prints "elapsed SECONDS")
"""
import sys
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main(reps):
    total = 0
    for _ in range(reps):
        total += fib(20)
    return total


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    t0 = time.perf_counter()
    main(reps)
    print("elapsed %.6f" % (time.perf_counter() - t0))
