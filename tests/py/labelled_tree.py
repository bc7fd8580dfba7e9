"""A tree whose processes the reports must tell apart by their labels:
a multiprocessing pool of 2 through a forkserver (the forkserver, its
resource tracker and the workers it forks), and a Celery-like prefork
tree: this process titles itself "prefork master [labelled]" and forks 2
workers that title themselves "prefork worker N [labelled]".  Each
worker spins SECONDS.

    python labelled_tree.py [SECONDS]

Prints "labelled done"."""
import multiprocessing
import os
import sys
import time

from proctitle import set_title


def spin(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


def main(seconds):
    set_title("prefork master [labelled]")
    kids = []
    for i in (1, 2):
        pid = os.fork()
        if pid == 0:
            set_title("prefork worker %d [labelled]" % i)
            spin(seconds)
            os._exit(0)
        kids.append(pid)
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Pool(2) as pool:
        pool.map(spin, [seconds, seconds], chunksize=1)
    for pid in kids:
        os.waitpid(pid, 0)
    print("labelled done")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.4)
