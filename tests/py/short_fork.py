"""A fork child that is sampled for about 15 ms and then ends, well within
the 20 ms in which an exec would have made it one spawn with the program
it execs (pyprof(7), Following children): its file is created only as it
ends.  short_fork.py HOW: HOW is _exit (os._exit(4)) or exit (sys.exit(4),
through the interpreter's finalization).  Prints "child PID EXIT" once it
has ended."""
import os
import sys
import time


def short_burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def main():
    how = sys.argv[1]
    pid = os.fork()
    if pid == 0:
        short_burn(0.015)
        if how == "_exit":
            os._exit(4)
        sys.exit(4)
    _, status = os.waitpid(pid, 0)
    print("child", pid, os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
