"""A tree with one genuine not-profiled record sent over pyprof-run's
socket, while a process outside the tree forges another:
forged_record_tree.py SCRATCH_DIR.

Writes PYPROF_RUN_SOCKET into SCRATCH_DIR/socket, waits (at most 60 s) for
SCRATCH_DIR/sent, which the forger creates once its datagram is sent, then
runs a child as nobody (uid 65534) with /usr/bin/python3: it cannot write
into the root-owned 0700 output directory and sends its own record."""
import os
import subprocess
import sys
import time


def main():
    scratch = sys.argv[1]
    tmp = os.path.join(scratch, "socket.tmp")
    with open(tmp, "w") as f:
        f.write(os.environ["PYPROF_RUN_SOCKET"])
    os.rename(tmp, os.path.join(scratch, "socket"))
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(scratch, "sent")):
        if time.monotonic() > deadline:
            sys.exit("the forger never said it had sent")
        time.sleep(0.01)
    subprocess.run(["/usr/bin/python3", "-c", "import time; time.sleep(0.3)"],
                   user=65534, group=65534, extra_groups=[], cwd="/", check=True)


if __name__ == "__main__":
    main()
