"""A deep stack that changes faster than it can be read: descend 600 frames
and back, over and over, for SECONDS (default 4), each call logging the
clock on entry and exit so that the program knows how long its stack stood
at each depth.  Prints "truth S0 .. S5": the share of the time in descend
spent 1-100, 101-200, ... 501-600 frames of descend deep.

    python descend.py [SECONDS]
"""
import sys
import time

sys.setrecursionlimit(5000)
DEPTH = 600
BUCKET = 100
ns = time.perf_counter_ns
ev = []
log = ev.append


def descend(n):
    log(ns())
    r = 0 if n == 0 else descend(n - 1) + 1
    log(ns())
    return r


def fold(events, hist):
    last = len(events) - 1
    for i in range(last):
        d = i + 1 if i < DEPTH else last - i
        hist[min((d - 1) // BUCKET, DEPTH // BUCKET - 1)] += events[i + 1] - events[i]


def main(secs):
    hist = [0] * (DEPTH // BUCKET)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        del ev[:]
        descend(DEPTH - 1)
        fold(ev, hist)
    total = sum(hist) or 1
    print("truth " + " ".join("%.4f" % (h / total) for h in hist))


main(float(sys.argv[1]) if len(sys.argv) > 1 else 4.0)
