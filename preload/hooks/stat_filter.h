/*
 * hide_thread.h — keeps the sampler thread out of the thread count that
 * CPython >= 3.12 reads from /proc/self/stat right after fork() to decide
 * whether to warn (hide_thread.c says how, and why only then).
 */
#ifndef PYPROF_HIDE_THREAD_H
#define PYPROF_HIDE_THREAD_H

#include <stddef.h>

/* Called by the fork wrapper in the parent: the calling thread's next
 * fopen, if it is of /proc/self/stat, shows the count without our thread. */
void pp_hide_thread_arm(void);

/* Takes `ours` from field 20 (num_threads) of the /proc/PID/stat line in
 * line[0..len) (cap bytes of room, NUL-terminated on return), never below
 * 1.  Returns the new length, or 0 if the line is malformed (then it is
 * unchanged).  Exposed for the unit tests. */
size_t pp_stat_hide_threads(char *line, size_t len, size_t cap, long ours);

#endif
