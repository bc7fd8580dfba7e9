/*
 * progress.h — the line pyprof-merge draws on stderr while a long merge
 * reads its files: files, samples and MB read so far.
 */
#ifndef PYPROF_MERGE_PROGRESS_H
#define PYPROF_MERGE_PROGRESS_H

#include <stddef.h>

#include "model.h"

struct progress;

/* Starts watching pr (nfiles to read) when stderr is a terminal; the
 * line appears once the merge has taken delay_s seconds.  NULL when there
 * is nothing to draw on. */
struct progress *progress_start(struct m_progress *pr, size_t nfiles, double delay_s);

/* Draws the final counts if the line was due, erases it, and frees p
 * (NULL is fine). */
void progress_stop(struct progress *p);

#endif
