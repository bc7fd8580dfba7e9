"""A tree of three processes for the live view's test: the parent forks
two workers that burn in hot_spin for SECS while it naps, then reaps
them:

    live_tree.py SECS"""
import os
import sys
import time


def hot_spin(until):
    while time.time() < until:
        pass


def main():
    secs = float(sys.argv[1])
    end = time.time() + secs
    kids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            hot_spin(end)
            os._exit(0)
        kids.append(pid)
    while time.time() < end:
        time.sleep(0.05)
    for pid in kids:
        os.waitpid(pid, 0)


main()
