"""Where a fork child's sampler thread may run, looked at from the child:

    python fork_sampler_cpus.py wide|narrow

The parent forks a child; the child looks at once at the CPUs its one
other thread (the sampler, the only thread it did not make) may run on,
burns CPU in child_work for 0.3 s, and looks again.  It prints

    early N CPUS      the other thread's allowed CPUs right after the fork
    late N CPUS       and after the burn
    main CPUS         the child's main thread's allowed CPUs
    child PID exit N  (from the parent)

with CPUS as the kernel lists them ("0-1").  narrow: the parent first
allows its main thread one CPU only, as a program may (taskset, a
worker pinned by its server), so the child's main thread has that one
CPU and the sampler must not be given more.
"""
import os
import sys
import time


def other_threads():
    me = str(os.getpid())
    return [t for t in os.listdir("/proc/self/task") if t != me]


def allowed(tid):
    with open("/proc/self/task/%s/status" % tid) as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


def child_work(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


def main():
    if sys.argv[1:] == ["narrow"]:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    child_work(0.05)
    pid = os.fork()
    if pid == 0:
        # The sampler starts in the fork wrapper, before os.fork returns
        # here: its thread is there at once.
        early = [allowed(t) for t in other_threads()]
        child_work(0.3)
        late = [allowed(t) for t in other_threads()]
        main_cpus = allowed(str(os.getpid()))
        print("early %d %s" % (len(early), " ".join(early)))
        print("late %d %s" % (len(late), " ".join(late)))
        print("main %s" % main_cpus, flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child %d exit %d" % (pid, os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main()
