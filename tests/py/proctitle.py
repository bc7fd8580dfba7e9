"""set_title(TITLE): sets the process's title the way setproctitle does,
over the command line's own memory (which /proc/PID/cmdline shows and
the preload reads back), for the process-label tests."""
import ctypes


def set_title(title):
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    # proc(5): arg_start and arg_end are fields 48 and 49; fields[0] is 3
    start, end = int(fields[45]), int(fields[46])
    data = title.encode()[:end - start - 1]
    ctypes.memset(start, 0, end - start)
    ctypes.memmove(start, data, len(data))
