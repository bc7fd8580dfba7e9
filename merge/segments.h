/*
 * segments.h — which of the files given are one image's time segments
 * (pyprof-run --keep, --max-size; pyprof(5), SEGMENT), to be read as one
 * profile: those whose names (pyprof/file_name.h) say the same directory
 * and image, in the order of their numbers.  The reader checks each
 * segment's header against the first's.
 */
#ifndef PYPROF_MERGE_SEGMENTS_H
#define PYPROF_MERGE_SEGMENTS_H

#include <stddef.h>

/* One profile: its files' paths (pointers into the caller's array). */
struct seg_chain { char **paths; size_t n; };

/* The chains of paths[0..n), in the order of each one's first file in
 * paths; a file that is not a segment, or the second of a segment given
 * twice, is a chain of its own.  *out and each chain's paths array are
 * allocated (segments_free); returns the number of chains. */
size_t segments_group(char *const *paths, size_t n, struct seg_chain **out);
void segments_free(struct seg_chain *c, size_t n);

#endif
