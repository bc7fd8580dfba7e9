"""Works for a while, then really crashes (a read of address 0):
crash.py plain|handler|subprocess [SECONDS].

handler: first installs a C-level SIGSEGV handler through ctypes (libc's
signal()) that writes a message and _exit(42)s, then works, then crashes.
plain: no handler of its own (run it under -X faulthandler).
subprocess: as plain, but first runs /bin/true through subprocess with
cwd=, which takes _posixsubprocess's vfork path on every version: the vfork
child resets every signal handler before it execs, in memory it shares
with this process."""
import ctypes
import os
import signal
import subprocess
import sys

from burn import burn

MODE = sys.argv[1] if len(sys.argv) > 1 else "plain"
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0

HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_int)


def on_segv(signum):
    os.write(2, b"crash.py: caught signal %d, exiting with 42\n" % signum)
    os._exit(42)


if MODE == "handler":
    libc = ctypes.CDLL(None, use_errno=True)
    libc.signal.restype = ctypes.c_void_p
    libc.signal.argtypes = [ctypes.c_int, HANDLER]
    handler = HANDLER(on_segv)  # kept alive until the end
    if libc.signal(signal.SIGSEGV, handler) == ctypes.c_void_p(-1).value:
        sys.exit("signal() failed: %s" % os.strerror(ctypes.get_errno()))

if MODE == "subprocess":
    subprocess.run(["/bin/true"], cwd="/", check=True)

burn(SECONDS)
sys.stdout.write("crashing now\n")
sys.stdout.flush()
ctypes.string_at(0)  # strlen(NULL): a real fault on a bad address
print("not reached")
