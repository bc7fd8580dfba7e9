"""A server's own SIGINT handling, as uWSGI's: installs a SIGINT handler
over whatever it inherited (a background job's ignored SIGINT), writes
READY_FILE, and after the first SIGINT waits half a second more, then
prints how many arrived ("sigint N") and exits 0.  Gives up after 20 s.

    python sigint_server.py READY_FILE
"""
import signal
import sys
import time

got = []
signal.signal(signal.SIGINT, lambda s, f: got.append(s))
with open(sys.argv[1], "w"):
    pass
end = time.monotonic() + 20
while not got and time.monotonic() < end:
    time.sleep(0.01)
time.sleep(0.5)
print("sigint %d" % len(got), flush=True)
