/*
 * thread_cpu.h — CPU time of any thread of this process from its tid
 * alone, without touching glibc's struct pthread (which may be freed):
 * the kernel's per-thread CPU clock id encoding.  Async-signal-safe.
 */
#ifndef PYPROF_THREAD_CPU_H
#define PYPROF_THREAD_CPU_H

#include <stdint.h>
#include <time.h>

/* 0 and the thread's CPU time in *out; -1 once the thread is gone.  The
 * kernel brings a thread that is on a CPU up to date when asked, so two
 * equal answers mean the thread did not run in between. */
static inline int pp_thread_cpu_ns(uint32_t tid, uint64_t *out)
{
    struct timespec ts;
    clockid_t clk = (clockid_t)((~(unsigned)tid) << 3) | 6;
    if (clock_gettime(clk, &ts) != 0)
        return -1;
    *out = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    return 0;
}

#endif
