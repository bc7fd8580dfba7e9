"""Types Ctrl-C at a command run in a pseudo-terminal, as a user at a
terminal would: the command is the terminal's foreground process group.

    python ctrl_c.py READY_FILE COMMAND...

Waits (at most 20 s) for COMMAND to create READY_FILE, writes ^C to the
terminal, then prints what the command printed and "status N" (its exit
status, or -SIGNAL)."""
import os
import pty
import sys
import time

ready = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
end = time.monotonic() + 20
while not os.path.exists(ready) and time.monotonic() < end:
    time.sleep(0.01)
os.write(fd, b"\x03")
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
print("status %d" % os.waitstatus_to_exitcode(status))
