/*
 * framecache.h — CPython 3.15's frame cache for samplers, used in-process.
 *
 * 3.15 keeps PyThreadState.last_profiled_frame (the "anchor") for
 * profilers: a sampler writes a frame's address there, and the
 * interpreter, whenever it pops the frame at exactly that address, moves
 * the anchor to the popped frame's caller and counts the move in
 * last_profiled_frame_seq.  So while the count stays the same, the frame
 * at the anchor's address has not been popped, and a frame's callers are
 * suspended, unchanged, while it lives: everything below the anchor is
 * what it was.  pyprof(7), "Frame cache", says how this is used:
 *
 *   - proved, never assumed: an anchor becomes trusted only after a full
 *     walk (first read, and second read or a proof the thread did not
 *     run) during which the anchor and its count did not change, and
 *     which found the anchor at a frame the thread owns (its pop always
 *     moves the anchor); the frames the walk read below it are then the
 *     frames below it for as long as the count stays;
 *   - a trusted anchor lets a walk stop there: frames above it are read
 *     and checked as always, the anchor frame itself is read (its line
 *     moves), the frames below are taken from the proving walk; the
 *     anchor and its count must be unchanged once the walk is done;
 *   - k counted moves since then lead the anchor k links down the chain
 *     it was proved on: only through frames the thread owns, linked
 *     directly (an entry frame between two frames is popped without
 *     moving the anchor), and only to where the count says;
 *   - writing a new anchor ends the old one's trust: the written one is
 *     trusted only once a later walk proves it, a tick later, not the walk
 *     right after the write: the interpreter pops a frame by storing the
 *     new current frame and then reading the anchor with no barrier
 *     between (and RETURN_GENERATOR reads it before that store), so a pop
 *     under way at the write can miss it while the sampler still sees the
 *     popped frame on top; only a barrier in the interpreter's thread
 *     (membarrier(2), an interrupt per walk) would close that, and it cost
 *     more than the second read it would save (pyprof(7));
 *   - only thread states inside _PyRuntime's static storage are written:
 *     a heap thread state can be freed by its thread at any moment.
 */
#ifndef PYPROF_FRAMECACHE_H
#define PYPROF_FRAMECACHE_H

#include <stdint.h>

struct code_info;     /* codecache.h */

/* One frame as read (and, in a thread's cache, as last resolved). */
struct raw_frame {
    uintptr_t addr, code, instr, prev;
    struct code_info *info;
    int32_t line;
    int16_t owner;        /* 3.11+: who owns the frame; -1 for 3.10 */
    uint16_t shims_below; /* entry frames between this one and its caller */
};

/* One thread state's anchor, as pyprof knows it. */
struct fc_anchor {
    uintptr_t addr, seq;  /* trusted: the anchor and its count       */
    unsigned idx;         /* trusted: its index in the thread's cached
                             frames, outermost first                  */
    int trusted;
    uintptr_t wrote, wrote_seq;  /* the last anchor written, and the
                                    count read just after writing it  */
    int written;
};

/* Once at start-up: the layout's anchor fields (0 = this version has
 * none) and _PyRuntime's extent. */
void framecache_init(uint32_t ts_anchor, uint32_t ts_anchor_seq,
                     uintptr_t runtime, uintptr_t runtime_size);

/* Whether the frame cache may be used for this thread state at all. */
int framecache_usable(uintptr_t tstate);

/* The anchor and its count now (one 16-byte read); -1 if unreadable. */
int framecache_now(uintptr_t tstate, uintptr_t now[2]);

/* Where a walk of this thread may stop, from a's trusted anchor and the
 * thread state ts as read before the walk: the address of the frame
 * *idx of outer[0..depth) (the thread's cached frames, outermost first),
 * whose callers outer[0..*idx) are unchanged; 0 when the stack must be
 * read in full (a's trust then ends). */
uintptr_t framecache_stop(struct fc_anchor *a, const uint8_t *ts,
                          const struct raw_frame *outer, unsigned depth,
                          unsigned *idx);

/* After a walk that stopped at outer[idx]: whether the anchor and its
 * count (now, read after the walk) are still those in ts, so the anchor
 * frame lived through the walk; if so a trusts it at idx. */
int framecache_held(struct fc_anchor *a, const uint8_t *ts,
                    const uintptr_t now[2], unsigned idx);

/* After a full walk whose frames are outer[0..depth) (outermost first,
 * complete: not cut at the depth cap): the anchor becomes trusted if it
 * and its count were the same before (ts) and after (now) the walk and
 * the walk found it at a frame the thread owns. */
void framecache_prove(struct fc_anchor *a, const uint8_t *ts,
                      const uintptr_t now[2], const struct raw_frame *outer,
                      unsigned depth);

/* The innermost frame of outer[0..depth) that may serve as an anchor, or
 * -1. */
int framecache_pick(const struct raw_frame *outer, unsigned depth);

/* Writes outer[idx].addr as the thread's anchor (ending a's trust).
 * Seeing another writer (the anchor changed under an unchanged count
 * since pyprof's last write: a sampler such as CPython's own attached to
 * the process) turns the frame cache off for the rest of the process:
 * framecache_usable is 0 from then on. */
void framecache_write(struct fc_anchor *a, uintptr_t tstate,
                      const struct raw_frame *outer, unsigned idx);

#endif
