"""A deep stack that changes faster than it can be read: descend 600 frames
and back, over and over (a pause of 0-300 microseconds, drawn at random,
after each), for SECONDS (default 4), each call logging the
clock on entry and exit so that the program knows how long its stack stood
at each depth.  Prints "truth S0 .. S5": the share of the time in descend
spent 1-100, 101-200, ... 501-600 frames of descend deep.

    python descend.py [SECONDS [LOG]]

With LOG, also writes there where the stack stood when: a first line
"offset NS per N" (CLOCK_REALTIME minus this program's clock, which is
CLOCK_MONOTONIC; N clock readings per descent), then, as native 64-bit
integers, N readings for each descent: the clock at every tenth of its
1,200 calls and returns (event 0, 10, ... 1190) and at its last return.
tests/py/depth_at.py reads it.
"""
import random
import sys
import time
from array import array

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


def offset():
    """CLOCK_REALTIME minus ns(), from the closest of a few paired reads."""
    best = None
    for _ in range(20):
        a = time.time_ns()
        m = ns()
        b = time.time_ns()
        if best is None or b - a < best[0]:
            best = (b - a, (a + b) // 2 - m)
    return best[1]


def main(secs, log_path):
    hist = [0] * (DEPTH // BUCKET)
    kept = array("q") if log_path else None
    end = time.monotonic() + secs
    # A pause of random length after each descent, so that the cycle does
    # not keep step with the sampler's ticks: 3.12.1's cycle came to about
    # a millisecond on one VM, and at 1 kHz the ticks then fell in the
    # same part of it run after run (481 of 6,000 inside a descent).
    draw = random.Random(11).random
    while time.monotonic() < end:
        del ev[:]
        descend(DEPTH - 1)
        if kept is not None:
            kept.extend(ev[::10])
            kept.append(ev[-1])
        fold(ev, hist)
        until = ns() + int(draw() * 300000)
        while ns() < until:
            pass
    total = sum(hist) or 1
    print("truth " + " ".join("%.4f" % (h / total) for h in hist))
    if log_path:
        per = len(ev[::10]) + 1
        with open(log_path, "wb") as f:
            f.write(b"offset %d per %d\n" % (offset(), per))
            kept.tofile(f)


main(float(sys.argv[1]) if len(sys.argv) > 1 else 4.0,
     sys.argv[2] if len(sys.argv) > 2 else None)
