"""16 threads of mixed CPU and I/O: each thread alternates a pure-Python
CPU burst with a short blocking read from a pipe fed by a timer thread.

    python mixed16.py N      (N = bursts per thread; prints "elapsed SECONDS")
"""
import os
import sys
import threading
import time

THREADS = 16


def burst():
    acc = 0
    for i in range(1500):
        acc = (acc * 31 + i) % 1000003
    return acc


def worker(reps, rfd, out):
    acc = 0
    for _ in range(reps):
        acc += burst()
        os.read(rfd, 1)          # blocks until the feeder writes (I/O wait)
    out.append(acc)


def feeder(wfds, stop):
    while not stop.is_set():
        for w in wfds:
            try:
                os.write(w, b"x")
            except (BlockingIOError, BrokenPipeError):
                pass
        time.sleep(0.0005)


def main(reps):
    pipes = [os.pipe() for _ in range(THREADS)]
    for _, w in pipes:
        os.set_blocking(w, False)
    stop = threading.Event()
    out = []
    f = threading.Thread(target=feeder, args=([w for _, w in pipes], stop))
    f.start()
    ts = [threading.Thread(target=worker, args=(reps, r, out)) for r, _ in pipes]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    stop.set()
    f.join()
    return sum(out)


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    t0 = time.perf_counter()
    main(reps)
    print("elapsed %.6f" % (time.perf_counter() - t0))
