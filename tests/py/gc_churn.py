"""Spends a share of its time it measures itself in the cyclic garbage
collector: gc_churn.py SECONDS [MODE].

MODE explicit (the default): a heap of containers makes each gc.collect()
(in collect_now) take tens of milliseconds; between them plain_work spins
20 ms.  Automatic collection is off, so the collector runs only under
collect_now.

MODE auto: the same heap, automatic collection on with low thresholds,
and alloc_work allocating containers for 20 ms at a time, so that the
interpreter starts collections itself as it allocates (full ones among
them); plain_work spins 20 ms between.  gc.callbacks time each collection.

Prints "gc_share S" (the share of the loop's time spent collecting) and
"collections N"."""
import gc
import sys
import time

SECONDS = float(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "explicit"
gc.disable()
heap = [[i, {"k": i}, [i]] for i in range(100000)]


def collect_now():
    gc.collect()


def plain_work(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def alloc_work(seconds):
    end = time.perf_counter() + seconds
    keep = []
    while time.perf_counter() < end:
        keep.append([{}, []])
        if len(keep) > 1000:
            keep = []


in_gc = 0.0
collections = 0
started = [0.0]


def timing(phase, info):
    global in_gc, collections
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        in_gc += time.perf_counter() - started[0]
        collections += 1


if MODE == "auto":
    gc.callbacks.append(timing)
    gc.set_threshold(2000, 2, 2)
    gc.enable()
start = time.perf_counter()
while time.perf_counter() - start < SECONDS:
    if MODE == "auto":
        alloc_work(0.02)
    else:
        t0 = time.perf_counter()
        collect_now()
        in_gc += time.perf_counter() - t0
        collections += 1
    plain_work(0.02)
gc.disable()
print("gc_share %.4f" % (in_gc / (time.perf_counter() - start)))
print("collections", collections)
