"""Two versions of one program for the --diff tests:
diff_work.py alpha|beta [SECONDS] spends 80 % of the time in the function
named and 20 % in the other.  alpha and beta are the same code on purpose:
each must spin in its own lines for its self share to move."""
import sys
import time


def alpha(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        for i in range(1000):
            n += i * i
    return n


def beta(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        for i in range(1000):
            n += i * i
    return n


if __name__ == "__main__":
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    big = sys.argv[1] if len(sys.argv) > 1 else "alpha"
    alpha(seconds * (0.8 if big == "alpha" else 0.2))
    beta(seconds * (0.8 if big == "beta" else 0.2))
