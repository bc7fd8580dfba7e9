"""Waits in turn at four places, each a different stack, for a few
milliseconds each, while a second thread spins: naps.py SECONDS.

nap_long waits 3 ms near the top of the stack, nap_deep 2 ms under 150
frames of down(), nap_twice 1 ms at one line and then 1 ms at the next
(the same frame, only its instruction moves).  Between them the thread
runs for a few microseconds.  Prints "site NAME LINE SECONDS" for each
place: the function, the line of its sleep and the time spent there, and
"stalled N".

A wait counts at most STALL seconds more than it asked for: when the whole
machine stalls (a VM whose CPUs the host holds), the clock runs on while
the sampler, stopped too, counts its ticks as missed, and the time would
go to whichever wait the stall fell in.  N is how many waits were cut.
"""
import sys
import threading
import time

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
spent = {}
lines = {}
STALL = 0.010
stalled = 0


def count(site, asked, took):
    global stalled
    if took > asked + STALL:
        stalled += 1
        took = asked + STALL
    spent[site] = spent.get(site, 0.0) + took


def nap_long():
    t0 = time.perf_counter(); time.sleep(0.003); line = sys._getframe().f_lineno
    count("long", 0.003, time.perf_counter() - t0)
    lines["long"] = line


def nap_deep():
    t0 = time.perf_counter(); time.sleep(0.002); line = sys._getframe().f_lineno
    count("deep", 0.002, time.perf_counter() - t0)
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
    count("first", 0.001, t1 - t0)
    count("second", 0.001, t2 - t1)
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
print("stalled", stalled)
