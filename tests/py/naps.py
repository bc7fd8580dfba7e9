"""Waits in turn at four places, each a different stack, for a few
milliseconds each, while a second thread spins: naps.py SECONDS.

nap_long waits 3 ms near the top of the stack, nap_deep 2 ms under 150
frames of down(), nap_twice 1 ms at one line and then 1 ms at the next
(the same frame, only its instruction moves).  Between them the thread
runs for a few microseconds.  Prints "site NAME LINE SECONDS" for each
place: the function, the line of its sleep and the time spent there.
"""
import sys
import threading
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
spent = {}
lines = {}


def nap_long():
    t0 = time.perf_counter(); time.sleep(0.003); line = sys._getframe().f_lineno
    spent["long"] = spent.get("long", 0.0) + time.perf_counter() - t0
    lines["long"] = line


def nap_deep():
    t0 = time.perf_counter(); time.sleep(0.002); line = sys._getframe().f_lineno
    spent["deep"] = spent.get("deep", 0.0) + time.perf_counter() - t0
    lines["deep"] = line


def down(n):
    if n:
        down(n - 1)
    else:
        nap_deep()


def nap_twice():
    t0 = time.perf_counter(); time.sleep(0.001); a = sys._getframe().f_lineno
    t1 = time.perf_counter(); time.sleep(0.001); b = sys._getframe().f_lineno
    t2 = time.perf_counter()
    spent["first"] = spent.get("first", 0.0) + t1 - t0
    spent["second"] = spent.get("second", 0.0) + t2 - t1
    lines["first"], lines["second"] = a, b


def spin(stop):
    n = 0
    while not stop.is_set():
        n += 1


sys.setswitchinterval(0.0005)
stop = threading.Event()
spinner = threading.Thread(target=spin, args=(stop,))
spinner.start()
end = time.perf_counter() + SECONDS
while time.perf_counter() < end:
    nap_long()
    down(150)
    nap_twice()
stop.set()
spinner.join()
for site, fn in (("long", "nap_long"), ("deep", "nap_deep"),
                 ("first", "nap_twice"), ("second", "nap_twice")):
    print("site", fn, lines[site], "%.6f" % spent[site])
