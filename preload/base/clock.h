/*
 * clock.h — a clock's reading in nanoseconds.  CLOCK_MONOTONIC and
 * CLOCK_REALTIME are answered by the vDSO, without a system call, so the
 * sampler's ticks and walks may read them as often as they need.
 */
#ifndef PYPROF_CLOCK_H
#define PYPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pp_clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
