/*
 * pyprof/timer_tag.h — how a running sampler can be told from outside:
 * the signal and the value of its POSIX timer, which the kernel lists in
 * /proc/PID/timers as "signal: SIGNO/VALUE" (VALUE in hex).  The sampler
 * (preload/sample/sampler.c) arms it from the moment it starts, before
 * its profile file exists; pyprof-run (preload/run/stragglers.c) looks
 * for it to wait for processes of its tree that have not created their
 * file yet (pyprof-run(1), REPORT).
 *
 * The low 32 bits of the value are PP_TIMER_COOKIE, which the sampler
 * checks on every signal it takes.  On a 64-bit build the high 32 bits
 * are a hash of the output directory the process writes to, so that a
 * process of another run, writing elsewhere, is not taken for one of
 * ours.
 */
#ifndef PYPROF_TIMER_TAG_H
#define PYPROF_TIMER_TAG_H

#include <signal.h>
#include <stdint.h>

/* A real-time signal that glibc does not reserve; only ever delivered to
 * the sampler thread, which keeps it blocked. */
#define PP_TIMER_SIG (SIGRTMAX - 7)

#define PP_TIMER_COOKIE 0x50797066u         /* "Pypf" */

/* The timer's value for a process writing to the directory dir (its
 * absolute name, as PYPROF_OUT gives it). */
static inline uint64_t pp_timer_value(const char *dir)
{
    if (sizeof(void *) < sizeof(uint64_t))
        return PP_TIMER_COOKIE;
    uint32_t h = 2166136261u;                       /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (uint64_t)h << 32 | PP_TIMER_COOKIE;
}

/* Whether a value taken with the timer's signal is the cookie. */
static inline int pp_timer_is_ours(uint64_t value)
{
    return (uint32_t)value == PP_TIMER_COOKIE;
}

#endif
