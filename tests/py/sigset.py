"""libc's sigset() and sigignore(), the System V calls a C extension may
still use, on signals the library chains.  Prints what they return and
what sigaction() reads back; on stderr, whether the kernel's SIGSEGV
handler is the application's own (under the preload it must stay the
library's read guard, which passes a kill()-sent SIGSEGV on).  Ends with a
kill() of SIGSEGV, which the _exit handler turns into exit status 11."""
import ctypes
import os
import signal
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.sigset.restype = ctypes.c_void_p
libc.sigset.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p,
                         ctypes.c_void_p, ctypes.c_size_t]
EXIT = ctypes.cast(libc._exit, ctypes.c_void_p).value


class Sigaction(ctypes.Structure):      # glibc's struct sigaction, x86-64
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


class KernelSigaction(ctypes.Structure):  # rt_sigaction's, x86-64
    _fields_ = [("handler", ctypes.c_void_p), ("flags", ctypes.c_ulong),
                ("restorer", ctypes.c_void_p), ("mask", ctypes.c_ulong)]


def name(v):
    return {None: "SIG_DFL", 0: "SIG_DFL", 1: "SIG_IGN", 2: "SIG_HOLD",
            EXIT: "_exit"}.get(v, "other")


def reads(sig):
    sa = Sigaction()
    libc.sigaction(sig, None, ctypes.byref(sa))
    return name(sa.handler)


T = signal.SIGTERM
print("sigset _exit returns", name(libc.sigset(T, EXIT)))
print("sigaction reads", reads(T))
print("sigset SIG_HOLD returns", name(libc.sigset(T, 2)))
print("sigset _exit again returns", name(libc.sigset(T, EXIT)))
print("sigset SIG_DFL returns", name(libc.sigset(T, 0)))
print("sigaction reads", reads(T))
libc.sigignore(signal.SIGUSR1)
print("after sigignore, sigaction reads", reads(signal.SIGUSR1))
os.kill(os.getpid(), signal.SIGUSR1)
print("alive after SIGUSR1")
print("SIGSEGV sigset returns", name(libc.sigset(signal.SIGSEGV, EXIT)))
print("sigaction reads", reads(signal.SIGSEGV))
k = KernelSigaction()
libc.syscall(13, signal.SIGSEGV, None, ctypes.byref(k), 8)
print("kernel SIGSEGV handler:", name(k.handler), file=sys.stderr, flush=True)
sys.stdout.flush()
os.kill(os.getpid(), signal.SIGSEGV)
print("not reached")
