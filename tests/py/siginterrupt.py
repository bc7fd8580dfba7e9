"""A C-level handler installed with libc's siginterrupt() + signal(), the
way a C extension would: the blocking read() it interrupts must fail with
EINTR instead of being restarted.  Prints "read -1 Interrupted system
call"; a restarted read would block until the harness gives up."""
import ctypes
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)
HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_int)
handler = HANDLER(lambda signum: None)  # kept alive until the end
libc.signal.restype = ctypes.c_void_p
libc.signal.argtypes = [ctypes.c_int, HANDLER]
libc.siginterrupt(signal.SIGALRM, 1)
libc.signal(signal.SIGALRM, handler)
r, w = os.pipe()
libc.alarm(1)
buf = ctypes.create_string_buffer(1)
n = libc.read(r, buf, 1)
print("read", n, os.strerror(ctypes.get_errno()) if n < 0 else "")
