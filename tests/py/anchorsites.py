"""A deep stack whose innermost Python frame tells which line a frame 22
levels below it stands on: a DEPTH-level recursion, then `step` calls
`pad` from its LEFT or RIGHT line, alternately, `pad` recurses PAD levels
and calls `via`, and `via` runs C code for about a millisecond from its
ON_LEFT line when `step` was on LEFT and from ON_RIGHT when on RIGHT.  The
frames between `step` and `via` are the same code at the same addresses
either way.  In a consistent sample a `step` is on its LEFT line exactly
when its `via` is on ON_LEFT: a reader that took the frames below a
`via` from an earlier call (3.15's frame cache stops at an anchor and
takes the frames below it from an earlier walk) would break that.
    anchorsites.py [SECONDS [DEPTH [PAD]]]"""
import sys
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 300
PAD = int(sys.argv[3]) if len(sys.argv) > 3 else 20
sys.setrecursionlimit(DEPTH + PAD + 1000)


def via(side):
    if side:
        return sum(range(200000))  # ON_LEFT
    return sum(range(200001))  # ON_RIGHT


def pad(n, side):
    if n:
        return pad(n - 1, side)
    return via(side)


def step(k):
    if k % 2:
        return pad(PAD, 1)  # LEFT
    return pad(PAD, 0)  # RIGHT


def down(d, end):
    if d:
        return down(d - 1, end)
    k = 0
    while time.perf_counter() < end:
        step(k)
        k += 1


down(DEPTH, time.perf_counter() + SECONDS)
