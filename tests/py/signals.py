"""Waits for the signals pyprof-run forwards: signals.py READY_FILE.

Handles SIGUSR1, SIGUSR2, SIGHUP, SIGWINCH and SIGQUIT, then SIGINT (as
KeyboardInterrupt); writes READY_FILE once its handlers are in place,
prints each signal's name as it arrives and exits 7 when SIGINT comes."""
import os
import signal
import sys
import time

got = []


def note(signum, frame):
    got.append(signal.Signals(signum).name)


def main():
    for s in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP, signal.SIGWINCH,
              signal.SIGQUIT):
        signal.signal(s, note)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    end = time.time() + 20
    try:
        while time.time() < end:
            time.sleep(0.01)
    except KeyboardInterrupt:
        print(" ".join(sorted(got)), "SIGINT")
        sys.exit(7)
    print("timed out; got", " ".join(got))
    sys.exit(1)


if __name__ == "__main__":
    main()
