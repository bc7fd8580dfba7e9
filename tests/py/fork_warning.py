"""os.fork() from __main__, as a single-threaded program or with one extra
thread: fork_warning.py [threads].  CPython >= 3.12 warns about fork in a
multi-threaded process; the sampler thread must not make it warn where the
program alone would not.  The child burns a little CPU so that it is
profiled, and so does the parent before forking."""
import os
import sys
import threading
import time


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main():
    extra = sys.argv[1] == "threads" if len(sys.argv) > 1 else False
    done = threading.Event()
    if extra:
        t = threading.Thread(target=done.wait)
        t.start()
    spin(0.2)
    pid = os.fork()
    if pid == 0:
        spin(0.5)
        os._exit(0)
    os.waitpid(pid, 0)
    done.set()
    print("forked")


if __name__ == "__main__":
    main()
