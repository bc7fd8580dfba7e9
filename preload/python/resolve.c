/*
 * resolve.c — a walked chain made into a sample's frames (resolve.h): each
 * frame's code entry and line, the outer frames unchanged since the
 * thread's previous sample taken from it, and each caller checked to stand
 * where it can have its callee.
 */
#include <stdlib.h>

#include "base/child_writes.h"
#include "pyprof/format.h"
#include "python/callsite.h"
#include "python/ccall.h"
#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/pyvm.h"
#include "python/resolve.h"
#include "python/tscache.h"

static const struct py_layout *L;

void resolve_attach(const struct py_layout *layout) { L = layout; }

static int same_frame(const struct raw_frame *a, const struct raw_frame *b)
{
    return a->addr == b->addr && a->code == b->code && a->instr == b->instr &&
           a->prev == b->prev && a->owner == b->owner &&
           a->shims_below == b->shims_below;
}

/* The outermost frames of walk[0..n) whose (address, code, instruction)
 * equal those of the tstate's previous sample (and their links: the frame
 * cache's rules read them from the kept entries). */
static unsigned count_same(const struct ts_cache *tc,
                           const struct raw_frame *walk, int n)
{
    unsigned same = 0;
    if (tc)
        while (same < tc->depth && same < (unsigned)n &&
               same_frame(&walk[n - 1 - same], &tc->frames[same]))
            same++;
    return same;
}

/* Gives the reused outer frames their code entry and line.  With no
 * eviction since the tstate's cache was saved its pointers are still
 * good; otherwise each is looked up again (and pinned for this tick).
 * Returns how many could be reused. */
static unsigned reuse_outer(const struct ts_cache *tc, struct raw_frame *walk,
                            int n, unsigned same, int trusted)
{
    for (unsigned i = 0; i < same; i++) {
        struct raw_frame *a = &walk[n - 1 - i];
        a->info = trusted ? tc->frames[i].info : codecache_peek(a->code);
        if (!a->info)              /* evicted meanwhile: resolve afresh */
            return i;
        a->line = tc->frames[i].line;
    }
    return same;
}

/* The code objects resolved so far for the chain being resolved.  The
 * frames of one chain, read as one moment, each hold their code object
 * alive, so two of them at one address have the same object: reading it
 * once per chain tells as much as once per frame.  Reading it for each
 * frame of a deep recursion cost the sampler hundreds of reads a tick,
 * and the program more: each pulls the line of the object's reference
 * count, which the program writes at every call (pyprof(7), "Timing and
 * cost").  Entries handed out in a tick stay pinned (codecache.h). */
#define CHAIN_CODES 4
PP_CHILD_WRITES static struct { uintptr_t code; struct code_info *info; } chain_codes[CHAIN_CODES];
PP_CHILD_WRITES static unsigned chain_ncodes;   /* written at every chain */

static void chain_codes_reset(void) { chain_ncodes = 0; }

static struct code_info *chain_code(uintptr_t code)
{
    unsigned n = chain_ncodes < CHAIN_CODES ? chain_ncodes : CHAIN_CODES;
    for (unsigned i = 0; i < n; i++)
        if (chain_codes[i].code == code)
            return chain_codes[i].info;
    struct code_info *info = codecache_get(L, code);
    if (info) {
        chain_codes[chain_ncodes % CHAIN_CODES].code = code;
        chain_codes[chain_ncodes % CHAIN_CODES].info = info;
        chain_ncodes++;
    }
    return info;
}

/* Gives one frame its code entry and line; info stays NULL for a frame
 * that is not a Python frame yet.  -1 when the code object is unreadable. */
static int resolve_frame(struct raw_frame *a)
{
    a->info = chain_code(a->code);
    if (!a->info)
        return -1;
    int32_t lasti = lasti_of(L, a);
    /* A frame still running its setup instructions is not a Python
     * frame yet (generators excepted: owner 1).  Nor is one that has
     * not run an instruction (-1) where there are setup instructions:
     * for a generator or coroutine function that is its creation
     * (RETURN_GENERATOR), not the generator running. */
    if (L->frames == FRAMES_INTERP && a->owner != 1 &&
        a->info->firsttraceable > 0 &&
        (lasti < 0 || lasti < a->info->firsttraceable)) {
        a->info = NULL;
        return 0;
    }
    a->line = codecache_line(L, a->info, lasti < 0 ? -1 : lasti);
    if (a->line < 0 && lasti < 0)
        a->line = a->info->firstlineno;
    return 0;
}

/* Whether every caller in walk[0..n) whose callee it pushed inline (no
 * shim or C entry between them) stands where it can have one, and every
 * caller of a generator entered from C where it can resume one
 * (callsite.h).  Two reads of the chain can agree and still join two
 * moments: a caller in a tight loop read between two calls, on its loop
 * test, while the callee read before and after is each time a new call
 * at the same address; or a generator that yields to a short loop and is
 * resumed again between the reads of its caller and of its caller link
 * (pyprof(7), "Consistent stacks").  The caller's instruction tells.
 * The outermost `same` frames are as the thread's previous sample had
 * them, callers and callees checked then. */
static int callers_can_call(const struct raw_frame *walk, int n,
                            unsigned same)
{
    int last = n - (int)same;         /* the outermost caller to check */
    for (int i = 1; i < n && i <= last; i++) {
        if (!walk[i].info)
            continue;
        const struct callsite_map *m = &walk[i].info->calls;
        int32_t at = lasti_of(L, &walk[i]);
        if (!walk[i - 1].shims_below ? !callsite_can_call(m, at)
            : walk[i - 1].owner == 1 && !callsite_can_resume(m, at))
            return 0;
    }
    return 1;
}

/* What each frame of the sample being resolved is calling where its
 * callee was entered from C (ccall.h), outermost first: mk[k] for frame
 * k, from `lo` on; below lo, the thread's cache's (tc->cc), or none. */
static struct code_info **mk;
static size_t mk_cap;

/* Fills mk[lo..n) for walk[0..n) (innermost first).  A caller whose
 * callee is reused too keeps what it had (the thread's cache holds what
 * its last sample wrote): the two are one call that has not moved (same
 * as frames' names, pyprof(7) "Consistent stacks"); so with kept, only
 * the frames read anew and the innermost reused one are looked at (lo),
 * and without (the names it pointed to may have been reused), all of
 * them.  Returns whether any was found. */
static int find_callbacks(const struct raw_frame *walk, int n, unsigned lo)
{
    if (mk_cap < (size_t)n) {
        struct code_info **m = realloc(mk, (size_t)n * sizeof *m);
        if (!m)
            return -1;
        mk = m;
        mk_cap = (size_t)n;
    }
    int found = 0;
    for (int k = (int)lo; k < n; k++) {
        int i = n - 1 - k;
        mk[k] = i == 0 || !walk[i].info || !walk[i - 1].shims_below ? NULL
                : ccall_callee(&walk[i]);
        found |= mk[k] != NULL;
    }
    return found;
}

struct marks {
    unsigned lo;                   /* mk[] from here on, cc below        */
    struct code_info *const *cc;   /* the thread's cache's, or NULL      */
    int any;                       /* any frame may have one             */
    int same;                      /* those below lo are the last sample's */
};

/* The C function frame k (a, outermost first, and a + step its callee)
 * is calling where that called its callee back, or NULL. */
static struct code_info *mark_of(const struct marks *m, unsigned k, unsigned n,
                                 const struct raw_frame *a, ptrdiff_t step)
{
    if (!m->any || k + 1 >= n || !a->info || !(a + step)->info ||
        !(a + step)->shims_below)
        return NULL;
    return k < m->lo ? (m->cc ? m->cc[k] : NULL) : mk[k];
}

/* Copies the resolved frames among n raw ones (a, then step apart) to o
 * and the places below it; returns the place after the last written. */
static inline struct pyvm_frame *copy_frames(struct pyvm_frame *o,
                                             const struct raw_frame *a,
                                             ptrdiff_t step, unsigned n)
{
    for (unsigned k = 0; k < n; k++, a += step)
        if (a->info)
            *o-- = (struct pyvm_frame){ .code = a->info, .line = a->line,
                                        .addr = a->addr };
    return o;
}

/* Writes n resolved frames, the outermost at outermost and each next
 * inner one step away, into the end of out[], with the C function each
 * is calling where that called its callee back (m); frames not resolved
 * (incomplete, innermost) are left out.  *same_out: the written frames of
 * the outermost same, with the C functions between them, which are what
 * the thread's previous sample wrote when m->same (else 0 when it may
 * have written others).  *written: the C functions written; none without
 * room for them all under PP_MAX_DEPTH.  Returns the depth. */
static int emit(const struct raw_frame *outermost, ptrdiff_t step,
                unsigned n, unsigned same, struct marks *m,
                struct pyvm_frame *out, unsigned *same_out, unsigned *written)
{
    unsigned count = 0;
    for (unsigned k = 0; m->any && k + 1 < n; k++)
        count += mark_of(m, k, n, outermost + (ptrdiff_t)k * step, step) != NULL;
    if (n + count > PP_MAX_DEPTH) {
        count = 0;
        m->any = 0;
        m->same = 0;             /* the last sample may have written some */
    }
    m->any = m->any && count;
    *written = count;
    *same_out = 0;
    /* Every sample passes here with all its frames (a deep stack's
     * hundreds): kept in locals, what the stores into out[] cannot be
     * taken to leave alone, and with no C function between them, a loop
     * that only copies. */
    const int any = m->any, keep_same = m->same;
    struct pyvm_frame *o = out + PP_MAX_DEPTH - 1;
    const struct raw_frame *a = outermost;
    if (!any) {
        unsigned head = same < n ? same : n;
        o = copy_frames(o, a, step, head);
        if (head && head == same && (a + (ptrdiff_t)(head - 1) * step)->info &&
            keep_same)
            *same_out = (unsigned)(out + PP_MAX_DEPTH - 1 - o);
        o = copy_frames(o, a + (ptrdiff_t)head * step, step, n - head);
        return (int)(out + PP_MAX_DEPTH - 1 - o);
    }
    for (unsigned k = 0; k < n; k++, a += step) {
        if (!a->info)
            continue;
        o = copy_frames(o, a, step, 1);
        if (k + 1 == same)
            *same_out = keep_same ? (unsigned)(out + PP_MAX_DEPTH - 1 - o) : 0;
        struct code_info *c = any ? mark_of(m, k, n, a, step) : NULL;
        if (c)
            *o-- = (struct pyvm_frame){ .code = c, .line = 0, .addr = 0 };
    }
    return (int)(out + PP_MAX_DEPTH - 1 - o);
}

int resolve_emit_cached(const struct ts_cache *tc, struct pyvm_frame *out,
                        unsigned *same_out)
{
    /* Names that may have been reused are left out, and then the sample
     * may differ from the one before. */
    int valid = tc->ccall_gen == ccall_generation() && tc->cc;
    struct marks m = { .lo = tc->depth, .cc = valid ? tc->cc : NULL,
                       .any = valid && tc->markers,
                       .same = valid || !tc->markers };
    unsigned written;
    return emit(tc->frames, 1, tc->depth, tc->depth, &m, out, same_out, &written);
}

/* Keeps in tc what each of its frames (outermost first, n) was written
 * calling (m, whose cc may be tc's own); 0 when there is no room. */
static int keep_marks(struct ts_cache *tc, struct marks *m, unsigned n)
{
    if (tc->cc_cap < n) {
        int own = m->cc && m->cc == tc->cc;
        struct code_info **cc = realloc(tc->cc, (size_t)n * sizeof *cc);
        if (!cc)
            return 0;
        tc->cc = cc;
        tc->cc_cap = n;
        if (own)
            m->cc = cc;
    }
    for (unsigned k = 0; k < n; k++)
        tc->cc[k] = mark_of(m, k, n, &tc->frames[k], 1);
    return 1;
}

/* Resolves walk[0..n) into out[], reusing what the tstate's previous sample
 * resolved for unchanged outer frames.  Returns the resolved depth
 * (incomplete frames dropped), -1 when a code object is unreadable. */
int resolve(struct ts_cache *tc, struct raw_frame *walk, int n,
            struct pyvm_frame *out, unsigned *same_outer)
{
    uint32_t ev = codecache_evictions();
    int trusted = tc && tc->evictions == ev;
    unsigned same = reuse_outer(tc, walk, n, count_same(tc, walk, n), trusted);
    chain_codes_reset();
    for (int i = n - 1 - (int)same; i >= 0; i--)
        if (resolve_frame(&walk[i]) < 0)
            return -1;
    if (!callers_can_call(walk, n, same))
        return -1;
    /* Trusted reused entries were not pinned: if resolving the rest
     * evicted anything, look them up again (a gone one: start over). */
    if (trusted && same && codecache_evictions() != ev &&
        reuse_outer(tc, walk, n, same, 0) != same) {
        tc->depth = 0;
        return resolve(tc, walk, n, out, same_outer);
    }
    /* What the reused frames were calling is the cache's while its names
     * hold; else every frame is looked at again. */
    int kept = tc && tc->ccall_gen == ccall_generation() &&
               (!tc->markers || tc->cc);
    struct marks m = { .lo = kept && same ? same - 1 : 0,
                       .cc = kept && tc->markers ? tc->cc : NULL,
                       .same = kept || !tc || !tc->markers };
    int found = find_callbacks(walk, n, m.lo);
    if (found < 0) {
        m.lo = (unsigned)n;       /* no room to look: none written */
        m.cc = NULL;
        m.same = !tc || !tc->markers;
        found = 0;
    }
    m.any = found || m.cc;
    /* out[] is filled from its end, outermost frame last, so that a
     * thread's unchanged outer frames stay where they were (resolve_hit).
     * Dropped incomplete frames are innermost: same_outer is unaffected. */
    unsigned written;
    int depth = emit(&walk[n - 1], -1, (unsigned)n, same, &m, out, same_outer,
                     &written);

    if (tc) {
        if (tc->cap < (unsigned)n) {
            struct raw_frame *fr = realloc(tc->frames, (size_t)n * sizeof *fr);
            if (fr) {
                tc->frames = fr;
                tc->cap = (unsigned)n;
            }
        }
        if (tc->cap >= (unsigned)n) {
            /* Trusted reused outer frames are already there as they are;
             * looked-up ones may have a new entry. */
            int from = trusted && codecache_evictions() == ev ? (int)same : 0;
            for (int i = from; i < n; i++)
                tc->frames[i] = walk[n - 1 - i];
            tc->depth = (unsigned)n;
            tc->evictions = codecache_evictions();
        } else {
            tc->depth = 0;
        }
        /* Frames dropped as incomplete are not reusable. */
        for (unsigned i = same; i < tc->depth; i++)
            if (!tc->frames[i].info) {
                tc->depth = i;
                break;
            }
        /* Its marks as written, for the next sample to reuse; where they
         * cannot be kept, the next sample looks at every frame again. */
        tc->markers = written;
        tc->ccall_gen = !written || keep_marks(tc, &m, tc->depth) ?
                        ccall_generation() : 0;
    }
    return depth;
}

/* Completes walk[0..n) with the frames below the frame-cache stop
 * walk[n - 1], which is tc->frames[base]: tc->frames[0..base), as the
 * anchor's proof read them.  Returns the new depth. */
int resolve_fill_below(const struct ts_cache *tc, struct raw_frame *walk,
                       unsigned base, int n)
{
    for (unsigned i = base; i-- > 0; n++) {
        walk[n] = tc->frames[i];
        walk[n].info = NULL;
    }
    return n;
}

/* resolve() for a walk that ended at the frame-cache stop: walk[0..n) are
 * the frames read, down to the stop, and the frames below it are
 * tc->frames[0..base), which the thread's previous sample left resolved
 * at the end of out[].  Touches only the frames read.  Returns the
 * resolved depth, -1 when a code object is unreadable, -2 when the
 * previous sample's entries cannot be used (the caller then completes
 * the walk with resolve_fill_below and calls resolve()). */
int resolve_hit(struct ts_cache *tc, struct raw_frame *walk, int n,
                unsigned base, int out_is_prev, struct pyvm_frame *out,
                unsigned *same_outer)
{
    uint32_t ev = codecache_evictions();
    /* Below the anchor out[] holds one frame for each of tc's: not so
     * with C functions written between them. */
    if (tc->evictions != ev || !out_is_prev || tc->markers ||
        tc->depth < base + 1 || base + (unsigned)n > PP_MAX_DEPTH)
        return -2;
    if (tc->cap < base + (unsigned)n) {
        struct raw_frame *fr = realloc(tc->frames,
                                       (base + (size_t)n) * sizeof *fr);
        if (!fr)
            return -2;
        tc->frames = fr;
        tc->cap = base + (unsigned)n;
    }
    unsigned same = base;
    while (same < tc->depth && same - base < (unsigned)n) {
        struct raw_frame *a = &walk[n - 1 - (same - base)];
        const struct raw_frame *b = &tc->frames[same];
        if (!same_frame(a, b))
            break;
        a->info = b->info;
        a->line = b->line;
        same++;
    }
    chain_codes_reset();
    for (int i = n - 1 - (int)(same - base); i >= 0; i--)
        if (resolve_frame(&walk[i]) < 0)
            return -1;
    if (!callers_can_call(walk, n, same - base))
        return -1;
    if (codecache_evictions() != ev)
        return -2;
    for (int i = 1; i < n; i++)
        if (walk[i].info && walk[i - 1].shims_below && ccall_callee(&walk[i]))
            return -2;
    int kept = (int)base;
    for (int i = n - 1; i >= 0; i--)
        if (walk[i].info) {
            out[PP_MAX_DEPTH - 1 - kept].code = walk[i].info;
            out[PP_MAX_DEPTH - 1 - kept].line = walk[i].line;
            out[PP_MAX_DEPTH - 1 - kept].addr = walk[i].addr;
            kept++;
        }
    for (unsigned i = same; i < base + (unsigned)n; i++)
        tc->frames[i] = walk[n - 1 - (i - base)];
    tc->depth = base + (unsigned)n;
    for (unsigned i = same; i < tc->depth; i++)
        if (!tc->frames[i].info) {
            tc->depth = i;
            break;
        }
    *same_outer = same;
    return kept;
}
