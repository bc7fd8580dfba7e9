"""Spends a share of its time it measures itself in the cyclic garbage
collector: gc_churn.py SECONDS.  A heap of containers makes each
gc.collect() (in collect_now) take tens of milliseconds; between them
plain_work spins 20 ms.  Automatic collection is off, so the collector
runs only under collect_now.  Prints "gc_share S" (the share of the loop's
time spent in gc.collect) and "collections N"."""
import gc
import sys
import time

SECONDS = float(sys.argv[1])
gc.disable()
heap = [[i, {"k": i}, [i]] for i in range(100000)]


def collect_now():
    gc.collect()


def plain_work(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


in_gc = 0.0
collections = 0
start = time.perf_counter()
while time.perf_counter() - start < SECONDS:
    t0 = time.perf_counter()
    collect_now()
    in_gc += time.perf_counter() - t0
    collections += 1
    plain_work(0.02)
print("gc_share %.4f" % (in_gc / (time.perf_counter() - start)))
print("collections", collections)
