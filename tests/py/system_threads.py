"""os.system() from several threads at once, many times: system() ignores
SIGINT and SIGQUIT in the caller while it waits, and overlapping calls must
leave them as they found them.  Prints the process's ignored-signal mask
(SigIgn in /proc/self/status) before and after."""
import os
import threading


def sigign():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("SigIgn:"):
                return line.split()[1]
    return "?"


def storm():
    for _ in range(15):
        os.system("sleep 0.01")


def main():
    before = sigign()
    threads = [threading.Thread(target=storm) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"sigign before {before} after {sigign()}")


if __name__ == "__main__":
    main()
