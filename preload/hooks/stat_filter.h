/*
 * stat_filter.h — keeps the sampler thread out of the thread count that
 * CPython >= 3.12 reads from /proc/self/stat right after fork() to decide
 * whether to warn (stat_filter.c says how, and why only then).
 */
#ifndef PYPROF_STAT_FILTER_H
#define PYPROF_STAT_FILTER_H

#include <stddef.h>

/* Called by the fork wrapper in the parent: the calling thread's next
 * fopen, if it is of /proc/self/stat, shows the count without our thread. */
void stat_filter_arm(void);

/* stat_line.c: takes `ours` from field 20 (num_threads) of the /proc/PID/stat line in
 * line[0..len) (cap bytes of room, NUL-terminated on return), never below
 * 1.  Returns the new length, or 0 if the line is malformed (then it is
 * unchanged).  Exposed for the unit tests. */
size_t stat_line_hide_threads(char *line, size_t len, size_t cap, long ours);

#endif
