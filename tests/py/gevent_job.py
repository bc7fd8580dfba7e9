"""The gevent test's job (server_drive.py): after monkey-patching, 4
greenlets that call hot() and sleep in turn, and beside them a Python
subprocess (gevent's subprocess) that calls hot() too; every call printed
as a served line."""
from gevent import monkey
monkey.patch_all()

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import gevent  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import server_jobs  # noqa: E402

CHILD = ("import sys; sys.path.insert(0, %r); import server_jobs\n"
         "for _ in range(10): print(server_jobs.line(server_jobs.hot()))" % here)


def greenlet():
    out = []
    for _ in range(5):
        out.append(server_jobs.hot())
        gevent.sleep(0.005)
    return out


def child():
    return subprocess.run([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                          text=True, check=True).stdout


if __name__ == "__main__":
    jobs = [gevent.spawn(greenlet) for _ in range(4)]
    sub = gevent.spawn(child)
    gevent.joinall(jobs + [sub], raise_error=True)
    for j in jobs:
        for ran in j.value:
            print(server_jobs.line(ran))
    sys.stdout.write(sub.value)
