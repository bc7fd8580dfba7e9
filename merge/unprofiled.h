/*
 * unprofiled.h — reading the records of processes that could not be
 * profiled (include/pyprof/unprofiled.h, pyprof(5)), for pyprof-merge's
 * report and pyprof-run's summary.  Records are untrusted input: bounded
 * in size and number, every field checked.
 */
#ifndef PYPROF_MERGE_UNPROFILED_H
#define PYPROF_MERGE_UNPROFILED_H

#include <stddef.h>

/* At most this many records are read (about 2 KiB of memory each). */
#define UNPROF_MAX_RECORDS 10000

struct unprofiled {
    long pid;                   /* -1: not given                           */
    long user;                  /* uid it ran as, -1: not given            */
    char parent[24];            /* PYPROF_PARENT it received, "" none      */
    char command[1024];
    char reason[1024];
    /* A process that stopped writing its profile (a full disk): the
     * profile's image id (16 hex digits), when (wall clock, ns since the
     * epoch), the error's name (ENOSPC), the ticks lost after it (-1: not
     * known, the process had not ended).  stopped_ns 0: a process that
     * was not profiled at all. */
    char image[17];
    unsigned long long stopped_ns;
    char err_name[24];
    long long lost;
};

/* Parses one record of len bytes; 0 if it is one, else -1 with what is
 * wrong in err. */
int unprofiled_parse(const char *text, size_t len, struct unprofiled *u,
                     char *err, size_t errlen);

/* Reads the record in path; 0, or -1 with the problem in err. */
int unprofiled_read(const char *path, struct unprofiled *u, char *err,
                    size_t errlen);

/* Whether a directory entry is a record by its name. */
int unprofiled_is_record_name(const char *name);

/* Every record of the directory, in name order, into a malloc'ed array
 * (*out, *n).  Records that cannot be read are named on stderr, prefixed
 * by who ("pyprof-run"), and skipped; returns how many were skipped, or -1
 * if the directory cannot be read or memory runs out. */
int unprofiled_scan(const char *dir, const char *who, struct unprofiled **out,
                    size_t *n);

/* "pid 12 as uid 65534 (python3 app.py): cannot create ...: Permission
 * denied" into buf; for a process that stopped writing, when, the error's
 * name and the ticks lost after it. */
void unprofiled_describe(const struct unprofiled *u, char *buf, size_t cap);

/* Keeps, of the records of one image that stopped writing, the last one
 * (the one sent when it ended, with its count of ticks lost): shrinks
 * *n, keeping the order of the rest. */
void unprofiled_dedupe(struct unprofiled *u, size_t *n);

#endif
