"""A fork child misses execs the way a PATH search does (paths that do not
exist), then execs kid.py after_misses (exec_misses.py exec) or, having
missed them all, burns on as itself in stay_burn for 0.3 s
(exec_misses.py stay).  exec_misses.py burn_exec: the child first burns
8 ms in stay_burn (sampled, well within its first 20 ms), then misses and
execs as with exec.  Prints "child PID EXIT" once it has ended."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KID = os.path.join(HERE, "kid.py")
PY = sys.executable
MISSES = [f"/nonexistent-pyprof-{i}/python3" for i in range(6)]


def stay_burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def main():
    mode = sys.argv[1]
    pid = os.fork()
    if pid == 0:
        if mode == "burn_exec":
            stay_burn(0.008)
        for path in MISSES:
            try:
                os.execv(path, [path])
            except OSError:
                pass
        if mode in ("exec", "burn_exec"):
            os.execv(PY, [PY, KID, "after_misses"])
        stay_burn(0.3)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child", pid, os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
