"""Sets the process's title the way setproctitle does (over the command
line's own memory, which /proc/PID/cmdline shows), twice, working a
little after each; for the process-label tests.

    python set_title.py FIRST LAST SECONDS

Prints "titled" at the end."""
import sys
import time

from proctitle import set_title


def work(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


first, last, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
set_title(first)
work(seconds)
set_title(last)
work(seconds)
print("titled")
