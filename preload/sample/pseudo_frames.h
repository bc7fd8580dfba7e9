/*
 * pseudo_frames.h — frames that are not Python code but say where the
 * time went: <interpreter N>, where a thread entered a subinterpreter
 * (interp_join.h), and <GC>, on top of a thread whose interpreter's
 * cyclic garbage collector was running on it (pyprof(7), "Garbage
 * collection").  Their file is "~", as the merge's other frames that are
 * not Python code (pyprof(5)).  Used by the sampler thread only.
 */
#ifndef PYPROF_PSEUDO_FRAMES_H
#define PYPROF_PSEUDO_FRAMES_H

#include <stdint.h>

#include "python/pyvm.h"

/* The pseudo-frame of interpreter id (its CODE record carries the id). */
struct code_info *pseudo_interp(int64_t id);

/* t lost its outermost frame to make room for a pseudo-frame: marked
 * truncated, and nothing of its previous sample reused (the writer's
 * same_outer would count from a frame that is gone). */
void pseudo_cut(struct pyvm_thread *t);

/* t with <GC> as its innermost frame (t has PP_SAMPLE_IN_GC), or t itself
 * when there is no memory for it.  Valid until the next call. */
const struct pyvm_thread *pseudo_gc_on_top(const struct pyvm_thread *t);

#endif
