"""Recurses DEPTH (default 900) levels deep, then burns CPU at the bottom:
recurse.py [DEPTH [SECONDS]].  The stack is <module> then DEPTH+1 frames of
rec."""
import sys
import time

DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 900
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
sys.setrecursionlimit(DEPTH + 1000)


def rec(n, seconds):
    if n:
        return rec(n - 1, seconds)
    end = time.perf_counter() + seconds
    k = 0
    while time.perf_counter() < end:
        k += 1
    return k


rec(DEPTH, SECONDS)
