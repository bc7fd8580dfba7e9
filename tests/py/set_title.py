"""Sets the process's title the way setproctitle does (over the command
line's own memory, which /proc/PID/cmdline shows), twice, working a
little after each; for the process-label tests.

    python set_title.py FIRST LAST SECONDS

Prints "titled" at the end."""
import ctypes
import sys
import time


def set_title(title):
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    # proc(5): arg_start and arg_end are fields 48 and 49; fields[0] is 3
    start, end = int(fields[45]), int(fields[46])
    data = title.encode()[:end - start - 1]
    ctypes.memset(start, 0, end - start)
    ctypes.memmove(start, data, len(data))


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
