/*
 * pp-lodger.so — what merely living in a program costs it.  Preloaded into
 * a program, it starts a thread of the program's own that a timer signal
 * wakes HZ times a second, exactly as pyprof's sampler thread is woken, and
 * that then spins SPIN_US microseconds on the clock, reading nothing of the
 * program's.  With PP_LODGER_APART=1 the same waker runs in a child process
 * instead, which shares no address space with the program.
 *
 *     PP_LODGER_HZ=10000 PP_LODGER_SPIN_US=20 LD_PRELOAD=bench/pp-lodger.so \
 *         python3 bench/py/recursion.py 30000
 *
 * Figure 7w compares both against pyprof on a program that unmaps memory
 * all the time: a program's unmap must stop every other CPU on which a
 * thread of its own runs, whatever that thread does (pyprof(7), "Timing
 * and cost").  With PP_LODGER_FORKS=1 every fork child gets a thread of
 * its own too (figure 6b's floor: what a thread per process costs a child
 * that execs or exits at once, whatever the thread does).  With
 * PP_LODGER_EXIT_FILE=DIR as well, a fork child that leaves by _exit (as
 * os._exit and a multiprocessing child do) first creates a file of a few
 * hundred bytes in DIR, as pyprof's exit does (figure 6b's floor of a
 * profiler that writes a file per process: on a file system that is slow
 * to make a file, such as ext4 without a journal soon after deletions,
 * that file alone can cost more than the thread).  A bench tool, not part
 * of pyprof: it takes one real-time signal and leaves the program's
 * exec'd children unlodged.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pp-tick.h"

static long hz, spin_ns;
static const char *exit_dir;    /* PP_LODGER_EXIT_FILE */
static int forked;              /* a fork child lodged in */

static void wake_and_spin(void)
{
    timer_t t;
    sigset_t set;
    pp_tick_block(NULL);
    if (pp_tick_arm(1000000000ULL / (uint64_t)hz, &t, &set) != 0)
        return;
    for (;;) {
        siginfo_t si;
        if (sigwaitinfo(&set, &si) < 0)
            continue;
        uint64_t end = pp_tick_now(CLOCK_MONOTONIC) + (uint64_t)spin_ns;
        while (pp_tick_now(CLOCK_MONOTONIC) < end)
            __builtin_ia32_pause();
    }
}

static void *lodger_thread(void *arg)
{
    (void)arg;
    wake_and_spin();
    return NULL;
}

static void lodge(void);

/* The file pyprof's exit of a fork child writes, in size and flags. */
static void exit_file(void)
{
    char path[4096], body[256];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (snprintf(path, sizeof path, "%s/lodger.%d.%016llx.zst", exit_dir,
                 (int)getpid(), (unsigned long long)ts.tv_nsec) >= (int)sizeof path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    memset(body, 'x', sizeof body);
    ssize_t wrote = write(fd, body, sizeof body);
    (void)wrote;                /* a short file still costs its making */
    close(fd);
}

void _exit(int status)
{
    if (forked && exit_dir)
        exit_file();
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

static void lodge_child(void)
{
    forked = 1;
    lodge();
}

static void lodge(void)
{
    sigset_t old;
    pp_tick_block(&old);
    pthread_t th;
    if (pthread_create(&th, NULL, lodger_thread, NULL) == 0)
        pthread_detach(th);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

__attribute__((constructor)) static void lodger_start(void)
{
    const char *h = getenv("PP_LODGER_HZ");
    const char *s = getenv("PP_LODGER_SPIN_US");
    const char *apart = getenv("PP_LODGER_APART");
    const char *forks = getenv("PP_LODGER_FORKS");
    exit_dir = getenv("PP_LODGER_EXIT_FILE");
    if (!h || (hz = atol(h)) <= 0 || hz > 1000000)
        return;
    spin_ns = s ? atol(s) * 1000L : 0;
    int in_child = apart && *apart == '1';
    /* The program's children are not lodged in. */
    unsetenv("PP_LODGER_HZ");
    unsetenv("LD_PRELOAD");
    if (in_child) {
        pid_t parent = getpid();
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(0);
            wake_and_spin();
            _exit(0);
        }
        return;
    }
    if (forks && *forks == '1')
        pthread_atfork(NULL, NULL, lodge_child);
    lodge();
}
