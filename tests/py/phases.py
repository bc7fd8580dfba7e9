"""Two phases one after the other, for pyprof-merge's time windows:
alpha burns for SECS, then beta burns for SECS; a fork child lives only
during alpha (child_burn).  Prints each phase's wall-clock start and end
(time.time()), which the test places its windows by:

    phases.py SECS"""
import os
import sys
import time


def burn_until(t):
    while time.time() < t:
        pass


def alpha(secs):
    burn_until(time.time() + secs)


def beta(secs):
    burn_until(time.time() + secs)


def child_burn(secs):
    burn_until(time.time() + secs)


def main():
    secs = float(sys.argv[1])
    a0 = time.time()
    pid = os.fork()
    if pid == 0:
        child_burn(secs / 2)
        os._exit(0)
    alpha(secs)
    a1 = time.time()
    os.waitpid(pid, 0)
    b0 = time.time()
    beta(secs)
    b1 = time.time()
    print("alpha %.6f %.6f" % (a0, a1))
    print("beta %.6f %.6f" % (b0, b1))
    print("child %d" % pid)


main()
