/*
 * held_records.h — the records pyprof-run received from processes of the
 * tree (pyprof(5), NOT-PROFILED RECORDS) but could not write into the
 * output directory (read-only, full, gone): kept in memory so that the
 * summary still says them, and written for the run's own merges into a
 * private directory of their own (pyprof-run(1), SUMMARY).
 */
#ifndef PYPROF_RUN_HELD_RECORDS_H
#define PYPROF_RUN_HELD_RECORDS_H

#include <stddef.h>

#include "unprofiled.h"

/* Keeps a copy of a record (len bytes, already checked by
 * unprofiled_parse); at most UNPROF_MAX_RECORDS are kept. */
void held_records_keep(const char *rec, size_t len);

/* How many are held. */
size_t held_records_count(void);

/* Writes the held records into a new private directory under $TMPDIR
 * (or /tmp) once, and returns its path for pyprof-merge to read with the
 * output directory; NULL when none are held or it cannot be made. */
const char *held_records_spill(void);

/* Appends the held records, parsed, to the malloc'ed array *u of *n
 * (records already in dir are read from there: the caller scans it). */
void held_records_append(struct unprofiled **u, size_t *n);

/* Removes the spill directory, if one was made. */
void held_records_cleanup(void);

#endif
