"""The work of the server tests (server_drive.py): hot() burns about 20 ms
of CPU, the function the report must show in the processes that ran it,
and says which process ran it, what it computed and how long it took by
that process's clock."""
import os
import time


def spin(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def hot(n=100000):
    t = time.perf_counter()
    r = spin(n)
    return [os.getpid(), r, round(time.perf_counter() - t, 6)]


def line(ran):
    return "served %d %d %.6f" % tuple(ran)
