"""Runs a command with a pseudo-terminal as its stdin, stdout and stderr,
and copies everything it wrote there to our stdout: pty_run.py CMD ARGS...
Exits with the command's exit status.

We keep the terminal's slave side open ourselves until the command has
ended and its output is drained: when the last holder of the slave closes
it, the kernel may drop what is still queued for the master (a hang-up),
and the command's last bytes were exactly what the tests look for."""
import os
import pty
import select
import subprocess
import sys

master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave,
                     start_new_session=True)
out = bytearray()


def drain(timeout):
    while True:
        r, _, _ = select.select([master], [], [], timeout)
        if not r:
            return
        data = os.read(master, 65536)
        if not data:
            return
        out.extend(data)


while p.poll() is None:
    drain(0.05)
drain(0.2)
os.close(slave)
os.close(master)
sys.stdout.buffer.write(bytes(out))
sys.stdout.flush()
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
