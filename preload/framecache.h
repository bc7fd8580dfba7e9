/*
 * framecache.h — CPython 3.15's frame cache for samplers, used in-process.
 *
 * 3.15 keeps PyThreadState.last_profiled_frame (the "anchor") for
 * profilers: whoever samples writes the innermost frame it saw there, and
 * the interpreter, whenever it pops exactly that frame, moves the anchor
 * to the popped frame's caller and counts the move in
 * last_profiled_frame_seq.  So, as long as the anchor frame has not been
 * popped, it and every frame below it are the ones seen before: a caller
 * cannot return while its callee lives.  The next walk reads frames from
 * the top down to the anchor, reads the anchor itself (its instruction
 * moves), and takes everything below it from the thread's previous sample.
 *
 * Soundness, in short (pyprof(7), "Frame cache"):
 *   - the anchor is accepted only where the pop count since our write
 *     says it must be: k pops from the frame we wrote lead k links down
 *     the chain we saw; anything else (another writer, a lost race with
 *     the interpreter's own update, a shim or generator frame on the way)
 *     is a miss and the stack is read in full;
 *   - only frames the thread owns (popped through the interpreter's
 *     update, never suspended like a generator's) serve as anchors or
 *     are passed by one;
 *   - the anchor and count must be unchanged after the walk, so the
 *     anchor frame lived through it;
 *   - the walk's own consistency checks apply unchanged;
 *   - we write the anchor only into thread states that live in
 *     _PyRuntime's static storage (the main interpreter's first thread
 *     state): a heap thread state can be freed by its thread at any
 *     moment, and a write into freed memory would corrupt the program.
 */
#ifndef PYPROF_FRAMECACHE_H
#define PYPROF_FRAMECACHE_H

#include <stdint.h>

struct code_info;     /* codecache.h */

/* What a frame looked like when last resolved. */
struct raw_frame {
    uintptr_t addr, code, instr, prev;
    struct code_info *info;
    int32_t line;
    int16_t owner;        /* 3.11+: who owns the frame; -1 for 3.10 */
    uint16_t shims_below; /* shim frames between this one and its caller */
};

/* The anchor we wrote into one thread state. */
struct fc_anchor {
    uintptr_t addr;       /* 0 = none                                   */
    uintptr_t seq;        /* last_profiled_frame_seq just after writing */
    unsigned idx;         /* index of the anchor in the outermost-first
                             frames of the sample that wrote it         */
};

/* Once at start-up: the layout's anchor fields (0 = this version has
 * none) and _PyRuntime's extent. */
void framecache_init(uint32_t ts_anchor, uint32_t ts_anchor_seq,
                     uintptr_t runtime, uintptr_t runtime_size);

/* Whether the frame cache may be used for this thread state at all. */
int framecache_usable(uintptr_t tstate);

/* Where a walk of this thread may stop: the address of the frame whose
 * callers are outer[0..*idx) (outermost first, from the thread's previous
 * sample) and unchanged, with that frame itself at outer[*idx]; 0 when
 * the stack must be read in full.  ts is the thread state as just read. */
uintptr_t framecache_stop(const struct fc_anchor *a, const uint8_t *ts,
                          const struct raw_frame *outer, unsigned depth,
                          unsigned *idx);

/* Whether the anchor and its count are still those in ts (read before
 * the walk): the anchor frame lived through the walk. */
int framecache_unmoved(uintptr_t tstate, const uint8_t *ts);

/* Makes outer[idx] the anchor (it must be a frame of the stack just
 * sampled, owned by the thread); a->addr = 0 when it could not. The
 * caller then checks that the frame is still alive, else drops a. */
void framecache_anchor(struct fc_anchor *a, uintptr_t tstate,
                       const struct raw_frame *outer, unsigned idx);

/* Whether a, made for outer[idx], is what ts (read before this sample's
 * walk) still holds: not popped since it was written, so it can stay. */
int framecache_holds(const struct fc_anchor *a, const uint8_t *ts,
                     unsigned idx);

/* The innermost frame of outer[0..depth) that may serve as an anchor, or
 * -1. */
int framecache_pick(const struct raw_frame *outer, unsigned depth);

#endif
