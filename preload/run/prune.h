/*
 * prune.h — bounded disk for a run that lasts (pyprof-run --keep,
 * --max-size; pyprof-run(1), BOUNDED DISK): the processes cut their
 * profiles into segments, and pyprof-run deletes the oldest segments
 * past the bound.  A process's newest segment is never deleted while the
 * process lives: it may be the one it writes.
 */
#ifndef PYPROF_RUN_PRUNE_H
#define PYPROF_RUN_PRUNE_H

#include <stdint.h>

struct pp_control;

struct prune_bound {
    uint64_t keep_ns;       /* segments that ended longer ago go; 0: none */
    uint64_t max_bytes;     /* the profile files' sizes; 0: none          */
};

struct prune_stats {
    uint64_t deleted, deleted_bytes;    /* segments deleted so far         */
    uint64_t peak_bytes;                /* the most seen at one look       */
    uint64_t last_bytes, last_files;    /* at the last look                */
    uint64_t over_looks;    /* looks at which the newest segments alone
                               left no room under max_bytes               */
};

/* SIZE as in --max-size: a number with K, M, G or T (powers of 1024; a
 * B after it is allowed) or none (bytes).  0, or -1 with why in err. */
int prune_parse_size(const char *s, uint64_t *bytes, char *err, size_t cap);

/* The segment length in seconds and the first segment size in KiB that
 * the processes are told (PYPROF_SEGMENT_S, PYPROF_SEGMENT_KB). */
unsigned prune_segment_seconds(const struct prune_bound *b);
unsigned prune_segment_kb(const struct prune_bound *b);

/* One look at dir: deletes what the bound says, and, with a page, tells
 * the processes the segment size that fits how many write at once. */
void prune_dir(const char *dir, const struct prune_bound *b, struct pp_control *page,
               struct prune_stats *st);

#endif
