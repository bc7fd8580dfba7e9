"""Fork children that end by the signals a process dies of with their
default action, and one that handles its own: each burns CPU in its own
function for 0.6 s, then
  hup    SIGHUP to itself              (terminates)
  quit   SIGQUIT to itself             (terminates, core dump where enabled)
  abort  os.abort()                    (SIGABRT, core dump where enabled)
  int    SIGINT to itself, after restoring SIG_DFL (Python's own handler
         would raise KeyboardInterrupt)
  own    SIGTERM to itself, with the application's own handler, which
         exits 5
The parent prints "NAME PID signal N core C" or "NAME PID exit N" for each.
With fatal_exits.py DIR, each child first enters DIR/NAME, so that core
dumps (where RLIMIT_CORE allows them) do not race for one file name.
"""
import os
import signal
import sys
import time


def burn(seconds):
    end = time.time() + seconds
    while time.time() < end:
        pass


def work_hup():
    burn(0.6)
    os.kill(os.getpid(), signal.SIGHUP)


def work_quit():
    burn(0.6)
    os.kill(os.getpid(), signal.SIGQUIT)


def work_abort():
    burn(0.6)
    os.abort()


def work_int():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    burn(0.6)
    os.kill(os.getpid(), signal.SIGINT)


def work_own():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(5))
    burn(0.6)
    os.kill(os.getpid(), signal.SIGTERM)


def main():
    children = {}
    for fn in (work_hup, work_quit, work_abort, work_int, work_own):
        pid = os.fork()
        if pid == 0:
            if len(sys.argv) > 1:
                where = os.path.join(sys.argv[1], fn.__name__)
                os.makedirs(where, exist_ok=True)
                os.chdir(where)
            fn()
            time.sleep(5)     # not reached: the signal ends the child
            os._exit(99)
        children[fn.__name__] = pid
    for name, pid in children.items():
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            core = 1 if os.WCOREDUMP(status) else 0
            print(f"{name} {pid} signal {os.WTERMSIG(status)} core {core}")
        else:
            print(f"{name} {pid} exit {os.WEXITSTATUS(status)}")


if __name__ == "__main__":
    main()
