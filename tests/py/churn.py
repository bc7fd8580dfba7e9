"""Threads that start and end as fast as they can, then a quiet phase in
which only the main thread is left.

    churn.py ROUNDS WIDTH SECONDS

Each round starts WIDTH threads that run a little Python and end; the
next round starts when the last has said it is done.  Once every thread
the program started is gone from /proc/self/task (CPython deletes a
thread's state before the thread ends), the main thread runs quiet_phase
for SECONDS.  Prints "tid N" for every thread the program had, the main
thread first.  Run with -S -I: only built-in modules.
"""
import posix
import sys
import _thread
import time

lock = _thread.allocate_lock()
left = [0]
tids = []


def spin(n):
    t = 0
    for i in range(n):
        t += i
    return t


def brief(n):
    tid = _thread.get_native_id()
    spin(n)
    with lock:
        tids.append(tid)
        left[0] -= 1


def churn(rounds, width):
    for r in range(rounds):
        with lock:
            left[0] += width
        for k in range(width):
            _thread.start_new_thread(brief, (5000 + 1000 * k,))
        while True:
            with lock:
                if left[0] == 0:
                    break
            time.sleep(0.0005)


def wait_gone():
    while True:
        listed = set(int(t) for t in posix.listdir("/proc/self/task"))
        if not listed.intersection(tids):
            return
        time.sleep(0.001)


def quiet_phase(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        spin(1000)


main = _thread.get_native_id()
churn(int(sys.argv[1]), int(sys.argv[2]))
wait_gone()
quiet_phase(float(sys.argv[3]))
print("tid", main)
for t in tids:
    print("tid", t)
