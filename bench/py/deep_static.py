"""The "deep_static" workload: a 900-frame recursion that then sleeps, so
every sample sees the same deep, unchanging stack.

    python deep_static.py SECONDS
"""
import sys
import time

sys.setrecursionlimit(5000)


def down(n, seconds):
    if n <= 1:
        time.sleep(seconds)
        return 1
    return n * down(n - 1, seconds)


if __name__ == "__main__":
    down(900, float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
