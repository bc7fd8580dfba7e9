"""libc's popen()/pclose() through ctypes (Python's os.popen uses
subprocess instead): libc_popen.py KID.

1. popen("python KID popen", "r"): the child's output is read and
   pclose() returns its status.
2. popen(..., "w") writes to a child's stdin.
3. One thread runs popen/pclose in a loop while another reads the
   environment with getenv(): every variable is always there, as without
   the preload (prints "lost N"; writing the environment meanwhile would
   race with glibc's own spawn, preload or not).
4. A stream of an earlier popen() is closed in a later child.
Prints one line per check."""
import ctypes
import os
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.popen.restype = ctypes.c_void_p
libc.popen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.pclose.argtypes = [ctypes.c_void_p]
libc.fgets.restype = ctypes.c_char_p
libc.fgets.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]
libc.fputs.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
libc.fileno.argtypes = [ctypes.c_void_p]
libc.setenv.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
libc.getenv.restype = ctypes.c_char_p
libc.getenv.argtypes = [ctypes.c_char_p]


def read_all(f):
    buf = ctypes.create_string_buffer(4096)
    out = b""
    while libc.fgets(buf, 4096, f):
        out += buf.value
    return out.decode()


def main():
    kid = sys.argv[1]
    f = libc.popen(f"{sys.executable} {kid} popen; exit 3".encode(), b"r")
    out = read_all(f)
    status = libc.pclose(f)
    print("read", "kid popen" in out or "popen" in out, "status", os.waitstatus_to_exitcode(status))

    f = libc.popen(b"read line; test \"$line\" = hello", b"w")
    libc.fputs(b"hello\n", f)
    print("write status", os.waitstatus_to_exitcode(libc.pclose(f)))

    stop = threading.Event()

    def spawner():
        while not stop.is_set():
            g = libc.popen(b"true", b"r")
            read_all(g)
            libc.pclose(g)

    names = [f"PP_TEST_VAR_{i}".encode() for i in range(50)]
    for n in names:
        libc.setenv(n, b"1", 1)
    t = threading.Thread(target=spawner)
    t.start()
    lost = 0
    for _ in range(400):
        lost += sum(1 for n in names if libc.getenv(n) is None)
    stop.set()
    t.join()
    print("lost", lost)

    first = libc.popen(b"cat >/dev/null", b"w")
    fd = libc.fileno(first)
    g = libc.popen(f"test -e /proc/self/fd/{fd} && echo open || echo closed".encode(), b"r")
    print("earlier stream in child", read_all(g).strip())
    libc.pclose(g)
    libc.pclose(first)


if __name__ == "__main__":
    main()
