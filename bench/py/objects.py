"""Attribute, dict and str work: small objects, dict updates, formatting.

    python objects.py N      (prints "elapsed SECONDS")
"""
import sys
import time


class Point:
    __slots__ = ("x", "y", "tag")

    def __init__(self, x, y, tag):
        self.x = x
        self.y = y
        self.tag = tag

    def norm1(self):
        return abs(self.x) + abs(self.y)


class Record:
    def __init__(self, key):
        self.key = key
        self.count = 0
        self.names = []


def churn(n):
    table = {}
    for i in range(n):
        p = Point(i % 17 - 8, i % 13 - 6, "p%d" % (i % 50))
        rec = table.get(p.tag)
        if rec is None:
            rec = table[p.tag] = Record(p.tag)
        rec.count += p.norm1()
        if len(rec.names) < 8:
            rec.names.append(f"{p.tag}:{p.x},{p.y}")
    text = ";".join("%s=%d" % (k, r.count) for k, r in sorted(table.items()))
    return len(text.upper().split(";"))


def main(reps):
    return sum(churn(2000) for _ in range(reps))


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    t0 = time.perf_counter()
    main(reps)
    print("elapsed %.6f" % (time.perf_counter() - t0))
