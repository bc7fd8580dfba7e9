"""One thread that splits its CPU 70/30 between two functions, for the CPU
mode test.

    python cpu_split.py CPU_SECONDS [UNIT] [each]

run() alternates heavy (7 units of work) and light (3 units of the same
loop; a unit is UNIT loop iterations, 20,000 unless given) until the main
thread has used CPU_SECONDS of CPU in it, whatever share of a CPU it gets
(the test runs it beside CPU hogs).  Prints "cpu RUN heavy H light L wall
W": the seconds of CPU run took (time.thread_time, the kernel's count, as
pyprof reads it), the part of it heavy and light took, and the wall-clock
seconds run took.

By default the CPU clock is read once every 64 cycles and H and L are the
work's 7/10 and 3/10 of run's CPU time: a read of the thread's own CPU
clock brings the scheduler's accounting up to date, and a thread whose
slice is due then loses its CPU there, so reads between the two functions
would make their boundary where the thread's slices end on a busy machine
(pyprof(7), "CPU mode", says what that does to the split).  With "each",
every call is timed by the CPU clock, and H and L are those times: the
boundary case."""
import sys
import time

UNIT = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
EACH = len(sys.argv) > 3 and sys.argv[3] == "each"


def work(units):
    n = 0
    for _ in range(units * UNIT):
        n += 1
    return n


def heavy():
    return work(7)


def light():
    return work(3)


def timed(cpu_seconds):
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


def by_work(cpu_seconds):
    clock = time.thread_time
    start = clock()
    wall = time.monotonic()
    cycles = 0
    while True:
        heavy()
        light()
        cycles += 1
        if cycles % 64 == 0 and clock() - start >= cpu_seconds:
            break
    total = clock() - start
    return total, total * 0.7, total * 0.3, time.monotonic() - wall


def run(cpu_seconds):
    return (timed if EACH else by_work)(cpu_seconds)


total, h, l, wall = run(float(sys.argv[1]))
print("cpu %.4f heavy %.4f light %.4f wall %.4f" % (total, h, l, wall))
