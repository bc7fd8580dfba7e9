"""Recurses DEPTH frames through deep() and burns for SECONDS in
bottom_burn at the bottom: very_deep.py DEPTH SECONDS.  Prints "bottom"
once it has burnt there."""
import sys
import time

DEPTH = int(sys.argv[1])
SECONDS = float(sys.argv[2])
sys.setrecursionlimit(DEPTH + 1000)


def bottom_burn():
    end = time.perf_counter() + SECONDS
    n = 0
    while time.perf_counter() < end:
        n += 1


def deep(n):
    if n == 0:
        bottom_burn()
        return
    deep(n - 1)


deep(DEPTH)
print("bottom")
