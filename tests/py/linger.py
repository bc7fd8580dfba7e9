"""A command whose Python child outlives it, as multiprocessing's resource
tracker does by a few milliseconds and a daemon by much longer.

    python linger.py SECONDS [HOW]

Starts a Python child that burns CPU in linger_work for SECONDS and exits,
prints "child PID" and exits.  HOW says when the command leaves:

    ready   (the default) once the child runs, in a session of its own;
    spawn   at once after starting the child (a new interpreter), which
            may not have started its profiling yet;
    fork    at once after os.fork(), the child in its first milliseconds.

The child holds none of this command's output."""
import os
import subprocess
import sys
import time

seconds = float(sys.argv[1])
how = sys.argv[2] if len(sys.argv) > 2 else "ready"


def linger_work(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


CHILD = """
import os, sys, time
def linger_work(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
if sys.argv[1] == "ready":
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    time.sleep(0.05)
linger_work(float(sys.argv[2]))
"""

if how == "fork":
    pid = os.fork()
    if pid == 0:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        linger_work(seconds)
        os._exit(0)
    print("child %d" % pid, flush=True)
    os._exit(0)

child = subprocess.Popen([sys.executable, "-c", CHILD, how, str(seconds)],
                         stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE if how == "ready" else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
if how == "ready":
    child.stdout.readline()
print("child %d" % child.pid, flush=True)
os._exit(0)
