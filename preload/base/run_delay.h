/*
 * run_delay.h — how long the calling thread has waited on a run queue
 * (runnable, but another task had the CPU): the second field of the
 * kernel's /proc/thread-self/schedstat.  A fork child's count starts at
 * zero, so wall time since the fork less this is the time the child itself
 * took, whatever the machine's load (pyprof(7), Following children).
 */
#ifndef PYPROF_RUN_DELAY_H
#define PYPROF_RUN_DELAY_H

#include <stddef.h>
#include <stdint.h>

/* The run-queue wait of a schedstat line ("CPU_NS WAIT_NS SLICES\n"),
 * or -1 if the line is not of that shape. */
int pp_schedstat_wait(const char *line, size_t len, uint64_t *wait_ns);

/* The calling thread's run-queue wait in nanoseconds, 0 where the kernel
 * does not say (no /proc, no schedstat).  Async-signal-safe: open, read
 * and close only, no heap. */
uint64_t pp_thread_run_delay_ns(void);

#endif
