"""CPU-bound pure-Python workloads for bench/run.py: workloads.py NAME SCALE.

recursion, objects (attribute/dict/str work), generators, mixed16 (16
threads, CPU and I/O), and the three of CPython's
Tools/inspection/benchmark_external_inspection.py: basic, deep_static (a
900-frame stack that does not change), threads (N threads, N from SCALE).
"""
import sys
import threading
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def recursion(scale):
    for _ in range(scale):
        fib(22)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def objects(scale):
    for _ in range(scale):
        d = {}
        for i in range(20000):
            p = Point(i, i * 2)
            d[str(i)] = p.x + p.y
        "-".join(sorted(d)[:1000]).upper()


def gen_numbers(n):
    for i in range(n):
        yield i * i


def generators(scale):
    for _ in range(scale):
        sum(x for x in gen_numbers(200000) if x % 3)


def mixed16(scale):
    def cpu():
        fib(18 + scale // 8)

    def io():
        for _ in range(scale * 5):
            time.sleep(0.002)
    ts = [threading.Thread(target=cpu if i % 2 else io) for i in range(16)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def basic(scale):
    end = time.perf_counter() + scale / 10
    while time.perf_counter() < end:
        fib(15)


def deep(n, seconds):
    if n == 0:
        end = time.perf_counter() + seconds
        x = 0
        while time.perf_counter() < end:
            x += 1
        return
    deep(n - 1, seconds)


def deep_static(scale):
    sys.setrecursionlimit(5000)
    deep(900, scale / 10)


def threads(scale):
    stop = time.perf_counter() + 2
    def work():
        while time.perf_counter() < stop:
            fib(12)
            time.sleep(0.001)
    ts = [threading.Thread(target=work) for _ in range(scale)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


if __name__ == "__main__":
    globals()[sys.argv[1]](int(sys.argv[2]))
