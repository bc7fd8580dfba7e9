/*
 * tscache.h — inside python/: what the walk keeps for each thread state
 * from one sample to the next (walk.c owns the slots; resolve.c reuses and
 * refreshes the resolved frames), and where a read frame stands.
 */
#ifndef PYPROF_PYTHON_TSCACHE_H
#define PYPROF_PYTHON_TSCACHE_H

#include <stdint.h>

#include "python/framecache.h"
#include "python/gil.h"
#include "python/layout/layout.h"

struct ts_cache {
    uintptr_t tstate;
    uint32_t gen;                  /* walk.c's caches_gen when claimed */
    uint32_t seen;                 /* tick when last used              */
    uint32_t seq;                  /* number of the last sample taken  */
    uint32_t evictions;            /* codecache_evictions() when saved */
    unsigned depth, cap;
    struct raw_frame *frames;      /* outermost first */
    struct fc_anchor anchor;       /* 3.15: the frame cache's anchor   */
    /* sample_unrun: frames[0..depth), all resolved, are the whole stack
     * the thread has had since GIL mark parked_mark, while its thread id
     * was parked_tid and its frame word parked_top. */
    uint8_t parked, truncated;
    uint32_t parked_tid;
    uintptr_t parked_top;
    struct gil_mark parked_mark;
    /* The C function the innermost frame was calling (ccall.h), as of
     * ccall generation leaf_gen: a parked thread is still calling it. */
    struct code_info *leaf;
    uint32_t leaf_gen;
    /* cc[k]: the C function frames[k] was written calling, where the next
     * inner frame was entered from C (ccall.h); markers: how many there
     * were (cc is valid only then), of ccall generation ccall_gen. */
    struct code_info **cc;
    unsigned cc_cap, markers;
    uint32_t ccall_gen;
    unsigned out_depth;            /* frames the last sample wrote to out[] */
};

/* The code unit a frame stands on: 3.10's f_lasti, or from 3.11 its
 * instruction pointer's offset into co_code_adaptive; -1 before the first
 * instruction, or where the pointer is not inside the code object. */
static inline int32_t lasti_of(const struct py_layout *l,
                               const struct raw_frame *rf)
{
    if (l->frames == FRAMES_OBJECTS)
        return (int32_t)(intptr_t)rf->instr;
    intptr_t d = (intptr_t)rf->instr -
                 (intptr_t)(rf->code + l->co_code_adaptive);
    if (d < -2 || d > (1 << 28))
        return -1;
    return (int32_t)(d / 2);
}

#endif
