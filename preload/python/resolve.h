/*
 * resolve.h — inside python/: a chain the walk read (raw frames, innermost
 * first) made into the frames of a sample (code entry and line, outermost
 * last at the end of out[PP_MAX_DEPTH]), reusing the thread's previous
 * sample for outer frames that did not change, and rejecting a chain
 * whose callers do not stand where they can have their callees
 * (callsite.h; pyprof(7), "Consistent stacks").
 */
#ifndef PYPROF_PYTHON_RESOLVE_H
#define PYPROF_PYTHON_RESOLVE_H

#include <stdint.h>

struct py_layout;
struct pyvm_frame;
struct raw_frame;
struct ts_cache;

/* The layout to resolve by; called once, from walk_attach. */
void resolve_attach(const struct py_layout *layout);

/* Resolves walk[0..n) into out[] and refreshes tc (may be NULL).  Returns
 * the resolved depth, -1 when a code object is unreadable or a caller
 * stands where it cannot have its callee. */
int resolve(struct ts_cache *tc, struct raw_frame *walk, int n,
            struct pyvm_frame *out, unsigned *same_outer);

/* For a walk that stopped at the frame cache's anchor, tc->frames[base]:
 * resolves only the frames read above it, the rest being the previous
 * sample's, still in out[] when out_is_prev.  -2 when that cannot be
 * used: then resolve_fill_below and resolve(). */
int resolve_hit(struct ts_cache *tc, struct raw_frame *walk, int n,
                unsigned base, int out_is_prev, struct pyvm_frame *out,
                unsigned *same_outer);

/* Writes tc's resolved frames into the end of out[] as resolve() did
 * (with the C functions that called back between them); *same_out: how
 * many of them are as they were.  Returns the depth. */
int resolve_emit_cached(const struct ts_cache *tc, struct pyvm_frame *out,
                        unsigned *same_out);

/* Appends tc->frames[0..base) below walk[0..n), unresolved; returns the
 * new depth. */
int resolve_fill_below(const struct ts_cache *tc, struct raw_frame *walk,
                       unsigned base, int n);

#endif
