"""A tree that writes its profile fast: every call is to a function never
seen before (a new name, a new file), so that every sample adds strings,
code and stack records.  The parent, a thread of its own ("segment
worker") and two forked children, for SECONDS (argv[1]).  Used by
tests/integration/test_segments.c."""
import os
import random
import sys
import threading
import time


def fresh(tag):
    name = "f_%s_%016x" % (tag, random.getrandbits(64))
    src = "def %s(t):\n    while time.perf_counter() < t:\n        pass\n" % name
    ns = {}
    exec(compile(src, "/gen/%s_%032x.py" % (name, random.getrandbits(128)), "exec"),
         {"time": time}, ns)
    return ns[name]


def work(seconds, tag):
    end = time.time() + seconds
    i = 0
    while time.time() < end:
        fresh("%s_%d" % (tag, i))(time.perf_counter() + 0.001)
        i += 1


seconds = float(sys.argv[1])
kids = []
for k in range(2):
    pid = os.fork()
    if pid == 0:
        work(seconds, "child%d" % k)
        os._exit(0)
    kids.append(pid)
t = threading.Thread(target=work, args=(seconds, "thread"), name="segment worker")
t.start()
work(seconds, "parent")
t.join()
for pid in kids:
    os.waitpid(pid, 0)
