"""Starts N children one after the other the way KIND says and prints the
median time from just before each start to its reaping, in nanoseconds:

    fork_children.py KIND N

KIND: exec (os.fork then os.execv /bin/true), exit (os.fork then
os._exit), preexec (subprocess.run(["true"], preexec_fn=...): a fork, a
PATH search of failed execve calls, an exec) or mp (a multiprocessing
"fork" Process with an empty target, started and joined).  The parent
burns a little CPU between children so that it is a sampled, running
program, as a build script or a test runner is."""
import multiprocessing
import os
import statistics
import subprocess
import sys
import time


def nothing():
    pass


def one(kind):
    if kind == "exec":
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/true", ["true"])
        os.waitpid(pid, 0)
    elif kind == "exit":
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    elif kind == "preexec":
        subprocess.run(["true"], preexec_fn=nothing)
    elif kind == "mp":
        p = multiprocessing.get_context("fork").Process(target=nothing)
        p.start()
        p.join()


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    times = []
    for _ in range(n):
        s = 0
        for i in range(20000):
            s += i
        t = time.perf_counter_ns()
        one(kind)
        times.append(time.perf_counter_ns() - t)
    print(int(statistics.median(times)))


if __name__ == "__main__":
    main()
