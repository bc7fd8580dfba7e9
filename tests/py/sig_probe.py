"""Prints the signal state it was started with, then waits for signals:
sig_probe.py READY_FILE.

Prints Python's view (signal.getsignal) of SIGHUP, SIGINT, SIGQUIT,
SIGUSR1, SIGUSR2 and SIGTERM, the kernel's (the SigIgn and SigBlk lines of
/proc/self/status) and the main thread's mask.  Then handles SIGUSR2 and
SIGTERM, writes READY_FILE, and when SIGTERM comes prints which of the two
arrived and which signals are pending, and exits 0."""
import os
import signal
import sys
import time

NAMES = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGTERM")


def disposition(h):
    if h == signal.SIG_IGN:
        return "ignored"
    if h == signal.SIG_DFL:
        return "default"
    if h == signal.default_int_handler:
        return "KeyboardInterrupt"
    return "handler"


def main():
    for name in NAMES:
        print(name, disposition(signal.getsignal(getattr(signal, name))))
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("SigIgn:", "SigBlk:")):
                print(line.strip())
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    print("mask", " ".join(sorted(signal.Signals(s).name for s in mask)))
    sys.stdout.flush()
    got = set()

    def note(signum, frame):
        got.add(signal.Signals(signum).name)

    signal.signal(signal.SIGUSR2, note)
    signal.signal(signal.SIGTERM, note)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    end = time.time() + 20
    while "SIGTERM" not in got and time.time() < end:
        time.sleep(0.01)
    print("got", " ".join(sorted(got)))
    print("pending", " ".join(sorted(signal.Signals(s).name
                                     for s in signal.sigpending())))


if __name__ == "__main__":
    main()
