"""Processes whose threads all end without exit(): glibc's last thread to
end calls exit(0) (atexit handlers run, stdio is flushed, status 0).

    last_thread.py fork_from_worker   a worker forks; in the child, that
                                      thread burns, starts and joins one
                                      thread, and returns (CPython's
                                      test_threading shape)
    last_thread.py main_exits         main ends with pthread_exit while a
                                      worker burns
    last_thread.py staggered          main ends with pthread_exit; three
                                      workers end in the reverse of their
                                      start order

The thread that ends last burns in last_burn.  Its C stdio is flushed by
exit(0) only: "buffered by C" proves exit ran.  Prints no pids, so its
output can be compared with and without the preload.
"""
import ctypes
import os
import sys
import threading
import time

libc = ctypes.CDLL(None)


def say(line):
    # One write per line: print()'s pieces (words, end) are separate
    # writes, which another thread's output may come between.
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def burn(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def last_burn(seconds):
    burn(seconds)


def c_printf_unflushed(text):
    # Into C's stdout buffer: only exit() writes it out.
    libc.printf(text.encode())


def end_main_thread():
    # ctypes releases the GIL around the call: the workers go on.
    libc.pthread_exit(None)


def fork_from_worker():
    def worker():
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            say("child %s %d" % ("exit" if os.WIFEXITED(status) else "signal",
                                 os.waitstatus_to_exitcode(status)))
            return
        t = threading.Thread(target=burn, args=(0.1,))
        t.start()
        t.join()
        last_burn(0.5)
        say("child end")
        c_printf_unflushed("child buffered by C\n")

    w = threading.Thread(target=worker)
    w.start()


def main_exits():
    def worker():
        last_burn(0.6)
        say("worker done")
        c_printf_unflushed("buffered by C\n")

    threading.Thread(target=worker).start()
    end_main_thread()


def staggered():
    def worker(i):
        if i == 0:
            last_burn(0.8)
        else:
            burn(0.1 * (3 - i))
        say("worker %d done" % i)
        if i == 0:
            c_printf_unflushed("buffered by C\n")

    for i in range(3):
        threading.Thread(target=worker, args=(i,)).start()
    end_main_thread()


{"fork_from_worker": fork_from_worker, "main_exits": main_exits,
 "staggered": staggered}[sys.argv[1]]()
