"""A command whose Python child outlives it, as multiprocessing's resource
tracker does by a few milliseconds and a daemon by much longer.

    python linger.py SECONDS

Starts a Python child in a session of its own, waits until it runs, prints
"child PID" and exits; the child burns CPU in linger_work for SECONDS more
and exits.  The child holds none of this command's output."""
import subprocess
import sys

CHILD = """
import os, sys, time
def linger_work(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
sys.stdout.write("ready\\n")
sys.stdout.flush()
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
time.sleep(0.05)
linger_work(%f)
"""

child = subprocess.Popen([sys.executable, "-c", CHILD % float(sys.argv[1])],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, start_new_session=True)
child.stdout.readline()
print("child %d" % child.pid, flush=True)
