/*
 * pp-tick.h — the bench tools' copy of how pyprof's sampler is woken below
 * 20 kHz: a POSIX timer whose signal goes to one thread alone
 * (SIGEV_THREAD_ID), taken with sigwaitinfo.  Shared by pp-waker and
 * pp-lodger.so so that both wake exactly alike.
 */
#ifndef PP_TICK_H
#define PP_TICK_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PP_TICK_SIGNAL (SIGRTMAX - 7)

static inline uint64_t pp_tick_now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Arms a timer that signals the calling thread every iv_ns; *set is what
 * to pass to sigwaitinfo.  The signal must be blocked in every thread
 * (pp_tick_block) so that only sigwaitinfo takes it.  0 on success. */
static inline int pp_tick_arm(uint64_t iv_ns, timer_t *t, sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, PP_TICK_SIGNAL);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = PP_TICK_SIGNAL;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &sev, t) != 0)
        return -1;
    struct itimerspec its = {
        { (time_t)(iv_ns / 1000000000ULL), (long)(iv_ns % 1000000000ULL) },
        { (time_t)(iv_ns / 1000000000ULL), (long)(iv_ns % 1000000000ULL) },
    };
    return timer_settime(*t, 0, &its, NULL);
}

/* Blocks the tick signal in the calling thread (and the threads it
 * creates afterwards); *old gets the previous mask. */
static inline void pp_tick_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, PP_TICK_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

#endif
