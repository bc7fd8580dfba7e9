"""A command whose Python child outlives it, as multiprocessing's resource
tracker does by a few milliseconds and a daemon by much longer.

    python linger.py SECONDS [HOW]

Starts a Python child that burns CPU in linger_work for SECONDS and exits,
prints "child PID" and exits.  HOW says when the command leaves:

    ready   (the default) once the child runs, in a session of its own;
    spawn   at once after starting the child (a new interpreter), which
            may not have started its profiling yet;
    fork    at once after os.fork(), the child in its first milliseconds;
    starved at once after starting the child on one CPU where a shell spins
            for STARVE seconds at a real-time priority (chrt -f), so that
            the child waits for that CPU before its profiling starts (a
            loaded machine).  Prints "no real-time" and exits 3 if the
            hog cannot be started so.

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

STARVE = 0.5

preexec = None
if how == "starved":
    cpu = max(os.sched_getaffinity(0))

    def pin():
        os.sched_setaffinity(0, {cpu})

    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        print("no real-time", flush=True)
        os._exit(3)
    # Not Python, so nothing of the profile waits for it; timeout(1) runs
    # above the spinning shell's priority, to end it on time.  The child
    # starts once the shell spins.
    hog = subprocess.Popen(["chrt", "-f", "2", "timeout", str(STARVE),
                            "chrt", "-f", "1", "sh", "-c",
                            "echo spinning; while :; do :; done"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, preexec_fn=pin,
                           start_new_session=True)
    hog.stdout.readline()
    preexec = pin

child = subprocess.Popen([sys.executable, "-c", CHILD, how, str(seconds)],
                         stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE if how == "ready" else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=preexec)
if how == "ready":
    child.stdout.readline()
print("child %d" % child.pid, flush=True)
os._exit(0)
