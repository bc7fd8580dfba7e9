"""Prints the fds this process has open, as a program finds them: listed
in /proc/self/fd and probed with fstat up to the fd limit.  After some
flushes of a profile (PYPROF_FLUSH_MS, 200 ms by default), right after a
fork (and later in the child), then again after re-executing itself.
"""
import os
import resource
import sys
import time


def burn(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def fds(when):
    # listdir's own directory fd is listed too, in both runs alike.
    listed = sorted(int(x) for x in os.listdir("/proc/self/fd"))
    limit = min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 65536)
    probed = []
    for fd in range(limit):
        try:
            os.fstat(fd)
        except OSError:
            continue
        probed.append(fd)
    print(when, "listed", listed, "probed", probed, flush=True)


stage = sys.argv[1] if len(sys.argv) > 1 else "first"
burn(0.6)
fds(stage)
pid = os.fork()
if pid == 0:
    fds(stage + " fork child")
    burn(0.5)
    fds(stage + " fork child later")
    os._exit(0)
os.waitpid(pid, 0)
if stage == "first":
    os.execv(sys.executable, [sys.executable, __file__, "exec"])
