"""One thread that splits its CPU 70/30 between two functions, timed by
its own CPU clock (the kernel's count, as pyprof reads it), for the CPU
mode test.

    python cpu_split.py CPU_SECONDS [UNIT]

run() alternates heavy (7 units of work) and light (3 units; a unit is
UNIT loop iterations, 20,000 unless given) until the
main thread has used CPU_SECONDS of CPU in it, whatever share of a CPU it
gets (the test runs it beside CPU hogs).  Prints
"cpu RUN heavy H light L wall W": the seconds of CPU run, heavy and light
took (time.thread_time), and the wall-clock seconds run took."""
import sys
import time

UNIT = int(sys.argv[2]) if len(sys.argv) > 2 else 20000


def work(units):
    n = 0
    for _ in range(units * UNIT):
        n += 1
    return n


def heavy():
    return work(7)


def light():
    return work(3)


def run(cpu_seconds):
    clock = time.thread_time
    start = clock()
    wall = time.monotonic()
    h = l = 0.0
    while clock() - start < cpu_seconds:
        t0 = clock()
        heavy()
        t1 = clock()
        light()
        t2 = clock()
        h += t1 - t0
        l += t2 - t1
    return clock() - start, h, l, time.monotonic() - wall


total, h, l, wall = run(float(sys.argv[1]))
print("cpu %.4f heavy %.4f light %.4f wall %.4f" % (total, h, l, wall))
