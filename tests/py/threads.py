"""Four threads spin, four sleep in time.sleep, main joins them:
threads.py [SECONDS].  Prints "ROLE NATIVE_TID" per thread at the end
(roles: main, spin, sleep)."""
import sys
import threading
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
roles = []
lock = threading.Lock()


def register(role):
    with lock:
        roles.append((role, threading.get_native_id()))


def spin(seconds):
    register("spin")
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def nap(seconds):
    register("sleep")
    time.sleep(seconds)


register("main")
threads = [threading.Thread(target=spin, args=(SECONDS,), name=f"spin-{i}")
           for i in range(4)]
threads += [threading.Thread(target=nap, args=(SECONDS,), name=f"sleep-{i}")
            for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for role, tid in roles:
    print(role, tid)
