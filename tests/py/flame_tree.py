"""A small process tree for the HTML report tests: flame_tree.py [SECONDS].

The root spins in root_spin while a thread sleeps in idle_wait (wall
samples, no CPU ones); it starts a child with subprocess that spins in
child_spin and forks one that spins in forked_spin.  spin_until's lines
marked HOT are where every process spends its time.  Before root_spin the
root runs tower: a recursion TOWER frames deep that spins at its top, for
the page's deep-tower checks."""
import os
import subprocess
import sys
import threading
import time


def spin_until(end):
    n = 0
    while time.perf_counter() < end:
        for i in range(2000):  # HOT
            n += i * i  # HOT
    return n


def root_spin(seconds):
    return spin_until(time.perf_counter() + seconds)


def child_spin(seconds):
    return spin_until(time.perf_counter() + seconds)


def forked_spin(seconds):
    return spin_until(time.perf_counter() + seconds)


TOWER = 60


def tower(n, end):
    if n > 0:
        return tower(n - 1, end)
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


def idle_wait(seconds):
    time.sleep(seconds)


def main(seconds):
    if len(sys.argv) > 2 and sys.argv[2] == "child":
        child_spin(seconds / 2)
        return
    pid = os.fork()
    if pid == 0:
        forked_spin(seconds / 3)
        os._exit(0)
    kid = subprocess.Popen([sys.executable, __file__, str(seconds), "child"])
    waiter = threading.Thread(target=idle_wait, args=(seconds,), name="waiter")
    waiter.start()
    tower(TOWER, time.perf_counter() + seconds / 5)
    root_spin(seconds)
    os.waitpid(pid, 0)
    kid.wait()
    waiter.join()
    print("tree done")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
