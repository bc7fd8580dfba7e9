"""Runs a command with a pseudo-terminal as its stdin, stdout and stderr,
and copies everything it wrote there to our stdout: pty_run.py CMD ARGS...
Exits with the command's exit status."""
import os
import pty
import sys

pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:          # EIO: the child closed the terminal
        break
    if not data:
        break
    sys.stdout.buffer.write(data)
sys.stdout.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode")
         else status >> 8)
