"""A deep stack whose frames keep changing call site: a DEPTH-level
recursion (one call site), then CHURN levels in which every `step` calls
`left` or `right` from a different line, over and over, for SECONDS.  In a
consistent sample a `step` frame is on its LEFT line exactly when the
frame above it is `left`: a reader that reused a caller's line from an
earlier moment would break that.  callsites.py [SECONDS [DEPTH [CHURN]]]"""
import sys
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 300
CHURN = int(sys.argv[3]) if len(sys.argv) > 3 else 4
sys.setrecursionlimit(DEPTH + CHURN + 1000)


def left(n):
    return step(n)


def right(n):
    return step(n)


def step(n):
    if n == 0:
        x = 0
        for i in range(300):
            x += i
        return x
    t = 0
    for i in range(3):
        if (i + n) % 2:
            t += left(n - 1)  # LEFT
        else:
            t += right(n - 1)  # RIGHT
    return t


def down(d, end):
    if d:
        return down(d - 1, end)
    while time.perf_counter() < end:
        step(CHURN)


down(DEPTH, time.perf_counter() + SECONDS)
