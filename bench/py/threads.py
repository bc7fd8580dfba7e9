"""The "threads" workload: starts with 5 threads doing mixed CPU and sleep
work; the main thread adds and retires threads at random (between 5 and
100 live), doing CPU work itself.

    python threads.py SECONDS [N]

With N, exactly N threads run for the whole time (no adding/retiring).
Prints "threads_max M" and "work W" (units of CPU work done by all threads).
"""
import math
import random
import sys
import threading
import time


def cpu_work(rng):
    r = 0.0
    for _ in range(10000):
        r += math.sin(rng.random()) * math.cos(rng.random())
    return r


def mixed(stop, rng, done):
    while not stop.is_set():
        if rng.random() < 0.3:
            cpu_work(rng)
            done[0] += 1
        else:
            stop.wait(0.1)


def spawn(n, live, rng):
    for _ in range(n):
        stop = threading.Event()
        done = [0]
        t = threading.Thread(target=mixed, args=(stop, random.Random(rng.random()), done))
        t.start()
        live.append((t, stop, done))


def run(seconds, fixed=0):
    rng = random.Random(1234)
    live = []
    retired = []
    main_work = 0
    spawn(fixed or 5, live, rng)
    most = len(live)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not fixed and rng.random() < 0.1:
            if rng.random() < 0.5 and len(live) < 100:
                spawn(rng.randint(1, 5), live, rng)
            elif len(live) > 10:
                k = rng.randint(1, 5)
                for t, stop, done in live[:k]:
                    stop.set()
                    retired.append(done)
                del live[:k]
        most = max(most, len(live))
        cpu_work(rng)
        main_work += 1
        time.sleep(0.05)
    for t, stop, done in live:
        stop.set()
    for t, stop, done in live:
        t.join()
        retired.append(done)
    print("threads_max %d" % most)
    # Units of CPU work done by all threads in the fixed time: a profiler
    # that slows the program shows as fewer units.
    print("work %d" % (main_work + sum(d[0] for d in retired)))


if __name__ == "__main__":
    run(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0,
        int(sys.argv[2]) if len(sys.argv) > 2 else 0)
