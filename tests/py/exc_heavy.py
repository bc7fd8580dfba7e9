"""Spends known shares of its time inside except blocks: exc_heavy.py SECONDS.

The main thread alternates handler_work (20 ms spun inside an except
block), gen_handler (10 ms spun inside an except block of a generator,
so the handled exception is the generator's) and plain_work (20 ms with
no exception anywhere on its stack).  A second thread, sleeper, sleeps the
whole run inside an except block.  Prints "handled_share S": the share of
the loop's time spent in handler_work and gen_handler.
"""
import sys
import threading
import time

SECONDS = float(sys.argv[1])


def spin(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def handler_work(seconds):
    spin(seconds)


def plain_work(seconds):
    spin(seconds)


def gen_handler(seconds):
    try:
        raise KeyError("in a generator")
    except KeyError:
        spin(seconds)
        yield 1


def sleeper(seconds):
    try:
        raise OSError("asleep")
    except OSError:
        time.sleep(seconds)


t = threading.Thread(target=sleeper, args=(SECONDS + 0.5,), name="sleeper")
t.start()
handled = 0.0
start = time.perf_counter()
while time.perf_counter() - start < SECONDS:
    t0 = time.perf_counter()
    try:
        raise ValueError("handled")
    except ValueError:
        handler_work(0.02)
    for _ in gen_handler(0.01):
        pass
    handled += time.perf_counter() - t0
    plain_work(0.02)
print("handled_share %.4f" % (handled / (time.perf_counter() - start)))
t.join()
