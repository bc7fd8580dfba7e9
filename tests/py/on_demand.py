"""A tree for sampling on demand: the parent forks child_a at once, burns
in parent_work until DIR/go exists, then forks child_b, and burns on
until DIR/end exists; each child burns in its function until DIR/end
exists.  Prints nothing; the test drives it with the two files.

    on_demand.py DIR"""
import os
import sys


def burn_until(path):
    n = 0
    while True:
        n += 1
        if n % 2000 == 0 and os.path.exists(path):
            return


def child_a(end):
    burn_until(end)


def child_b(end):
    burn_until(end)


def parent_work(path):
    burn_until(path)


def main():
    d = sys.argv[1]
    go, end = os.path.join(d, "go"), os.path.join(d, "end")
    kids = []
    pid = os.fork()
    if pid == 0:
        child_a(end)
        os._exit(0)
    kids.append(pid)
    parent_work(go)
    pid = os.fork()
    if pid == 0:
        child_b(end)
        os._exit(0)
    kids.append(pid)
    parent_work(end)
    for pid in kids:
        os.waitpid(pid, 0)


main()
