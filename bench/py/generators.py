"""Generator pipelines: nested generators, yield from, comprehensions.

    python generators.py N      (prints "elapsed SECONDS")
"""
import sys
import time


def numbers(n):
    i = 0
    while i < n:
        yield i
        i += 1


def evens(src):
    for v in src:
        if v % 2 == 0:
            yield v


def chunks(src, size):
    buf = []
    for v in src:
        buf.append(v)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf


def flatten(groups):
    for g in groups:
        yield from g


def main(reps):
    total = 0
    for _ in range(reps):
        total += sum(x * x for x in flatten(chunks(evens(numbers(4000)), 7)))
        total += len([c for c in "".join(str(v) for v in numbers(300)) if c in "357"])
    return total


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    t0 = time.perf_counter()
    main(reps)
    print("elapsed %.6f" % (time.perf_counter() - t0))
