"""The "basic" workload of CPython's external-inspection benchmark, in
spirit: one thread looping over a mix of recursive, numeric, string and
nested-call work with a 1 ms sleep per iteration.

    python basic.py SECONDS
"""
import math
import sys
import time


def fib_slow(n):
    return n if n <= 1 else fib_slow(n - 1) + fib_slow(n - 2)


def numeric():
    s = 0.0
    for i in range(1000):
        s += math.sqrt(i) * math.sin(i)
    return s


def small_loop():
    t = 0
    for i in range(100):
        t += i
    return t


def strings():
    words = ("hello world " * 100).split()
    return " ".join(words[::-1])


def outer():
    def middle():
        def inner():
            return numeric()
        return inner()
    return middle()


def run(seconds):
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        i += 1
        if i % 50 == 0:
            fib_slow(20)
        elif i % 10 == 0:
            outer()
        elif i % 5 == 0:
            strings()
        else:
            small_loop()
        time.sleep(0.001)


if __name__ == "__main__":
    run(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
