"""A three-level call chain a -> b -> c; c burns CPU: chain.py [SECONDS]."""
import sys
import time


def c(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        for i in range(1000):
            n += i
    return n


def b(seconds):
    return c(seconds)


def a(seconds):
    return b(seconds)


a(float(sys.argv[1]) if len(sys.argv) > 1 else 0.6)
