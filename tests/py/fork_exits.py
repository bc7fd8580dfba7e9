"""Fork children that end in every way a worker can end.

Each child burns CPU in its own function, then: os._exit(3); an uncaught
exception (exit status 1); SIGTERM from the parent after 1 s; SIGKILL from
the parent after 1.5 s.  The parent prints each child's status.
"""
import os
import signal
import sys
import time


def burn(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass


def work_exit():
    burn(0.6)
    os._exit(3)


def work_raise():
    burn(0.6)
    raise RuntimeError("uncaught in a fork child")


def work_term():
    burn(30)


def work_kill():
    burn(30)


def main():
    children = {}
    for fn in (work_exit, work_raise, work_term, work_kill):
        pid = os.fork()
        if pid == 0:
            try:
                fn()
            finally:
                sys.stderr.flush()
        children[fn.__name__] = pid
    time.sleep(1.0)
    os.kill(children["work_term"], signal.SIGTERM)
    time.sleep(0.5)
    os.kill(children["work_kill"], signal.SIGKILL)
    for name, pid in children.items():
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            print(f"{name} {pid} signal {os.WTERMSIG(status)}")
        else:
            print(f"{name} {pid} exit {os.WEXITSTATUS(status)}")


if __name__ == "__main__":
    main()
