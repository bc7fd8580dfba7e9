/*
 * image_mem.h — memory of one image that a fork child does not share.
 *
 * Page-granular anonymous mappings marked MADV_WIPEONFORK: fork() neither
 * copies their page tables nor write-protects them in the parent, so the
 * parent's sampler takes no copy-on-write fault on them after each fork,
 * and a child sees them zero-filled.  For buffers whose content a fork
 * child never reads before writing it (the writer's buffers, the walk's
 * scratch), and for tables whose zero state is empty: on a kernel without
 * MADV_WIPEONFORK (before 4.14) the child gets a copy, as of any memory,
 * and must then empty those tables itself (image_mem_wiped).
 */
#ifndef PYPROF_IMAGE_MEM_H
#define PYPROF_IMAGE_MEM_H

#include <stddef.h>

/* size bytes, zeroed, page-aligned; NULL if the mapping failed. */
void *image_mem_alloc(size_t size);

/* p (NULL: nothing) as image_mem_alloc(size) returned it. */
void image_mem_free(void *p, size_t size);

/* 1 if every mapping made so far is zero-filled in a fork child. */
int image_mem_wiped(void);

#endif
