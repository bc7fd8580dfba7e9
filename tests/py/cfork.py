"""A Python process forked from C, as uWSGI forks its workers: libc's
fork() called through ctypes (PyDLL: the GIL stays held across it), so
none of CPython's own fork handling runs in the child
(PyOS_AfterFork_Child is never called) and the child's thread state still
names the parent's thread.

    python cfork.py main|thread [SECONDS]

main: the main thread forks; thread: a second thread forks, and in the
child that thread is the only one.  The child burns CPU in child_work for
SECONDS (default 1) and leaves with os._exit(0); the parent burns in
parent_work as long, then reaps the child and prints "child PID exit N".
"""
import ctypes
import os
import sys
import threading
import time

libc_fork = ctypes.PyDLL(None).fork
libc_fork.restype = ctypes.c_int


def burn(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


def child_work(seconds):
    burn(seconds)


def parent_work(seconds):
    burn(seconds)


def fork_and_work(seconds, out):
    pid = libc_fork()
    if pid == 0:
        child_work(seconds)
        os._exit(0)
    out.append(pid)


def main():
    mode = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    pids = []
    if mode == "main":
        fork_and_work(seconds, pids)
    else:
        t = threading.Thread(target=fork_and_work, args=(seconds, pids))
        t.start()
        t.join()
    parent_work(seconds)
    _, status = os.waitpid(pids[0], 0)
    print("child %d exit %d" % (pids[0], os.waitstatus_to_exitcode(status)))


main()
