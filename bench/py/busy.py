"""One busy thread for SECONDS (the highest-rate sweep).

    python busy.py SECONDS
"""
import sys
import time


def spin(end):
    n = 0
    while time.monotonic() < end:
        for i in range(1000):
            n += i
    return n


if __name__ == "__main__":
    spin(time.monotonic() + (float(sys.argv[1]) if len(sys.argv) > 1 else 2.0))
