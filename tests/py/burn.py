"""Burns CPU in one known function: burn.py [SECONDS].

The integration tests find lines by their marker comments, never by
number: FIRSTLINE is burn's first line, HOT the lines the loop spends its
time on."""
import sys
import time


def burn(seconds):  # FIRSTLINE
    end = time.perf_counter() + seconds
    n = 0
    while True:
        for i in range(4000):  # HOT
            n += i * i  # HOT
        if time.perf_counter() > end:
            return n


if __name__ == "__main__":
    burn(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
