/*
 * stragglers.h — the processes of the tree still writing their profile
 * when the command has ended (a resource tracker that leaves a few
 * milliseconds after its parent, a daemon that outlives the command), for
 * pyprof-run to wait for, within a bound, before it reports
 * (pyprof-run(1), REPORT).
 */
#ifndef PYPROF_RUN_STRAGGLERS_H
#define PYPROF_RUN_STRAGGLERS_H

#include <stddef.h>
#include <sys/types.h>

/* The start of this run, taken before the command is started: only
 * processes started since count. */
void stragglers_mark_start(void);

/* Up to cap pids of processes started since the mark that still hold
 * their file in dir (<prog>.<pid>.<uid>.zst, pyprof(5)) open, then of
 * those whose sampler writes to dir but has no file there yet
 * (pyprof/timer_tag.h).  Returns how many were found (possibly more
 * than cap); *holding, if given, is how many of them came first, holding
 * a file. */
size_t stragglers_find(const char *dir, pid_t *pids, size_t cap, size_t *holding);

/* The command line of pid, spaces for NULs and other control characters,
 * cut to cap; "?" if gone. */
void stragglers_command(pid_t pid, char *buf, size_t cap);

#endif
