/*
 * run_delay.h — how long the calling thread has waited on a run queue
 * (runnable, but another task had the CPU): the second field of the
 * kernel's /proc/thread-self/schedstat.  A fork child's count starts at
 * zero, so wall time since the fork less this is the time the child itself
 * took, whatever the machine's load (pyprof(7), Following children).
 */
#ifndef PYPROF_RUN_DELAY_H
#define PYPROF_RUN_DELAY_H

#include <stdint.h>

#include "pyprof/schedstat.h"

/* The calling thread's run-queue wait in nanoseconds, 0 where the kernel
 * does not say (no /proc, no schedstat).  Async-signal-safe: open, read
 * and close only, no heap. */
uint64_t pp_thread_run_delay_ns(void);

#endif
