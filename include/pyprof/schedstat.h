/*
 * schedstat.h — the run-queue wait in a line of the kernel's schedstat
 * (/proc/.../schedstat: "CPU_NS WAIT_NS SLICES\n"), the time a thread was
 * runnable while other tasks had the CPU.  Shared by the library (a fork
 * child's own time: preload/base/run_delay.c) and pyprof-run (a process's
 * own time: preload/run/stragglers.c).
 */
#ifndef PYPROF_SCHEDSTAT_H
#define PYPROF_SCHEDSTAT_H

#include <stddef.h>
#include <stdint.h>

/* One decimal field at *i, into *v; -1 for no digits or one past 2^64. */
static inline int pp_schedstat_field(const char *s, size_t len, size_t *i, uint64_t *v)
{
    uint64_t x = 0;
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        unsigned d = (unsigned)(s[*i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *v = x;
    return 0;
}

/* The run-queue wait of a schedstat line, or -1 if the line is not of
 * that shape.  No heap, no locale: async-signal-safe. */
static inline int pp_schedstat_wait(const char *s, size_t len, uint64_t *wait_ns)
{
    size_t i = 0;
    uint64_t cpu, wait, slices;
    if (pp_schedstat_field(s, len, &i, &cpu) || i >= len || s[i++] != ' ' ||
        pp_schedstat_field(s, len, &i, &wait) || i >= len || s[i++] != ' ' ||
        pp_schedstat_field(s, len, &i, &slices))
        return -1;
    if (i < len && s[i] != '\n')
        return -1;
    *wait_ns = wait;
    return 0;
}

#endif
