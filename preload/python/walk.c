/*
 * walk.c — walks interpreters -> thread states -> frames from memory, in
 * the layout detect.c chose (walk_attach).
 *
 * Consistency: the walked thread keeps running.  A frame's callers are
 * suspended while it lives, so a walk is consistent if the first frame it
 * read is still alive afterwards (still in the thread's chain, same code,
 * same caller), even if the thread has called deeper meanwhile.  When it
 * has returned, what is left of the stack is kept if it can be shown to
 * be one moment (same_chain, covered_from).  Otherwise the stack is
 * walked again (up to MAX_RETRIES times) and then dropped and counted.
 * A busy thread's instruction pointer moves all the time; that alone does
 * not make a stack torn (the line comes from the first read).
 *
 * Reuse: a caller's frame does not change while its callee runs, so the
 * outermost frames whose (address, code, instruction) equal those of the
 * thread's previous sample keep their resolved code and line; only the
 * frames that changed go through the code cache and line table
 * (resolve.c).  On 3.15
 * a walk also stops at the interpreter-kept anchor once it is proved
 * (framecache.h) and takes the frames below it from the proving walk.
 * A thread that has not taken the GIL since its previous sample's walk is
 * not read at all (sample_unrun).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/clock.h"
#include "base/thread_cpu.h"
#include "guard/safe_read.h"
#include "pyprof/format.h"
#include "python/ccall.h"
#include "python/codecache.h"
#include "python/exc_state.h"
#include "python/framecache.h"
#include "base/image_mem.h"
#include "python/gil.h"
#include "python/layout/layout.h"
#include "python/pyvm.h"
#include "python/resolve.h"
#include "python/resumer.h"
#include "python/tscache.h"
#include "python/walk.h"

#define MAX_RETRIES 32        /* re-reads of one thread's stack: see sample_thread */
#define TICK_RETRIES 96       /* re-reads of all threads in one tick */
#define TS_SLOTS    512u      /* per-tstate caches; power of two */
#define MAX_THREADS 4096      /* walk bound for a thread list    */
#define MAX_INTERPS 256
#define FC_MIN_DEPTH 32       /* frame cache: shallower stacks are read whole */
#define FC_MOVE     16        /* frames read above the anchor before it moves */

/* What detect.c found (walk_attach, walk_thread_id_at); NULL L: nothing
 * to walk. */
static const struct py_layout *L;
static uintptr_t runtime;
static uintptr_t init_shim_code;     /* layout's init_shim_symbol, or 0 */
static int pthread_tid_off = -1;    /* 3.10: tid inside glibc's struct pthread */


static struct ts_cache ts_caches[TS_SLOTS];
/* A slot is in use only if its gen is this one: a fork child moves on to
 * the next instead of emptying every slot, whose pages it would otherwise
 * copy before it samples anything (pyprof(7), "Timing and cost"). */
PP_CHILD_WRITES static uint32_t caches_gen = 1;
PP_CHILD_WRITES static uint32_t tick_no, sample_seq;   /* written at every tick */
PP_CHILD_WRITES static unsigned tick_retries;   /* re-reads left in this tick */

/* Scratch for one walk, innermost first: written at every sample, so
 * kept out of a fork child's copy (base/image_mem.h). */
static struct raw_frame *walk;
static struct pyvm_frame *out;
/* Whose sample out[] holds (tstate, its sample number): resolve_hit
 * reuses its outer part. */
PP_CHILD_WRITES static uintptr_t out_tstate;
static uint32_t out_seq;
/* Where this walk may stop (framecache_stop), and whether it did. */
PP_CHILD_WRITES static struct {
    uintptr_t addr, code, prev;
    unsigned idx;
    int hit;
} fc_stop;

int walk_attach(const struct py_layout *layout, uintptr_t rt, uintptr_t shim)
{
    if (!walk)
        walk = image_mem_alloc(PP_MAX_DEPTH * sizeof *walk);
    if (!out)
        out = image_mem_alloc(PP_MAX_DEPTH * sizeof *out);
    if (!walk || !out)
        return -1;
    L = layout;
    resolve_attach(layout);
    runtime = rt;
    init_shim_code = shim;
    return 0;
}

void walk_thread_id_at(int off) { pthread_tid_off = off; }

/* ------------------------------------------------------------ walking */

static struct ts_cache *ts_cache_for(uintptr_t tstate)
{
    unsigned h = (unsigned)((tstate >> 4) * 2654435761u) & (TS_SLOTS - 1);
    for (unsigned i = 0; i < 8; i++) {
        struct ts_cache *c = &ts_caches[(h + i) & (TS_SLOTS - 1)];
        if (c->tstate == tstate && c->gen == caches_gen)
            return c;
    }
    for (unsigned i = 0; i < 8; i++) {
        struct ts_cache *c = &ts_caches[(h + i) & (TS_SLOTS - 1)];
        if (!c->tstate || c->gen != caches_gen || tick_no - c->seen > 2) {
            c->gen = caches_gen;
            c->tstate = tstate;
            c->depth = 0;
            c->parked = 0;
            c->seq = 0;
            c->markers = 0;
            c->leaf = NULL;
            memset(&c->anchor, 0, sizeof c->anchor);
            return c;
        }
    }
    return NULL;
}

/* Interpreter-internal frames (entry shims), not Python frames. */
static int is_shim(int owner)
{
    return L->owner_skip_min >= 0 && owner >= L->owner_skip_min &&
           owner <= L->owner_skip_max;
}

/* A thread's frame that has returned: 3.14+ clear its code reference as
 * they pop it, so the thread's top read just before can be such a frame
 * (read_frame returned 0 for it, as for a shim). */
static int popped(const struct raw_frame *rf, int owner)
{
    return !rf->code && L->frames != FRAMES_OBJECTS && !is_shim(owner);
}

/* 3.11+ push a frame at the top of the thread's data stack, so a caller
 * is usually just below its callee: while a walk reads a frame, the lines
 * under it are prefetched, PREFETCH_BELOW bytes ahead, each line once
 * (pf_low: the lowest line asked for in this walk), so that a deep walk
 * whose lines the program just wrote on another CPU waits for several
 * misses at once, not for each in turn (pyprof(7), "Timing and cost").
 * 3.10's frame objects come from pymalloc's pools, which a recursion
 * fills downwards too (on 3.10.13, 575-590 of 599 callers of a 600-deep
 * recursion lay 432 or 864 bytes below their callee): prefetching there
 * took its walks of 300-600 frames from 42-51 to 22-35 microseconds. */
#define PREFETCH_BELOW 1024
static uintptr_t pf_low;

static void prefetch_callers(uintptr_t f)
{
    uintptr_t line = f & ~(uintptr_t)63;
    uintptr_t want = line - PREFETCH_BELOW;
    if (line < 4096 + PREFETCH_BELOW)
        return;
    uintptr_t hi = pf_low > want && pf_low <= line ? pf_low : line;
    if (hi > want) {
        safe_read_prefetch(want, hi);
        pf_low = want;
    }
}

/* Reads one frame; returns 1 for a Python frame to record, 0 for a shim
 * to skip, -1 on a read failure. */
static int read_frame(uintptr_t f, struct raw_frame *rf, uintptr_t *prev,
                      int *owner)
{
    uint8_t raw[512];
    const uint8_t *base;
    if (pp_guard_env) {
        /* Inside a guarded section every read is a plain load: read the
         * three or four fields in place rather than copy the frame. */
        if (!safe_read_plausible(f, L->fr_read))
            return -1;
        base = (const uint8_t *)f;
        prefetch_callers(f);
    } else {
        if (safe_read(raw, f, L->fr_read) != 0)
            return -1;
        base = raw;
    }
    memcpy(prev, base + L->fr_previous, sizeof *prev);
    memcpy(&rf->code, base + L->fr_code, sizeof rf->code);
    rf->code &= ~L->code_tag_mask;
    rf->addr = f;
    rf->shims_below = 0;
    *owner = -1;
    if (L->frames == FRAMES_OBJECTS) {
        int32_t lasti;
        intptr_t refs;
        /* A freed frame object (on the free list, or its code's zombie)
         * keeps a stale or free-list f_back: the chain was cut here. */
        memcpy(&refs, base + L->fr_refcnt, sizeof refs);
        if (refs <= 0)
            return -1;
        memcpy(&lasti, base + L->fr_instr, sizeof lasti);
        rf->instr = (uintptr_t)(intptr_t)lasti;
        uintptr_t gen;
        memcpy(&gen, base + L->fr_gen, sizeof gen);
        *owner = gen ? 1 : 0;      /* as 3.11+'s owner: 1 = a generator */
        /* Every 3.10 frame runs in a C call of its own: one entry from C
         * between it and its caller (resolve.c, callers_can_call). */
        rf->shims_below = 1;
        return rf->code ? 1 : 0;
    }
    memcpy(&rf->instr, base + L->fr_instr, sizeof rf->instr);
    /* 3.11 marks a frame entered from C (where later versions put a shim
     * frame under it): counted as one shim between it and its caller. */
    if (L->fr_is_entry)
        rf->shims_below = base[L->fr_is_entry] != 0;
    *owner = base[L->fr_owner];
    if (is_shim(*owner))
        return 0;
    return rf->code ? 1 : 0;
}

static int cmp_addr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* A real stack never holds the same frame twice; a chain read while the
 * thread freed and reused frames can loop.  Only checked when the walk hit
 * the depth cap, the one way a loop can end. */
static int has_cycle(int n)
{
    static uintptr_t addrs[PP_MAX_DEPTH];
    for (int i = 0; i < n; i++)
        addrs[i] = walk[i].addr;
    qsort(addrs, (size_t)n, sizeof *addrs, cmp_addr);
    for (int i = 1; i < n; i++)
        if (addrs[i] == addrs[i - 1])
            return 1;
    return 0;
}

#define ALIVE_HOPS 64

/* The thread's current innermost frame, read now. */
static uintptr_t thread_top(uintptr_t tstate, int *ok)
{
    uintptr_t f = rd_ptr(tstate + L->ts_frame, ok);
    if (*ok && L->ts_frame_kind == TS_FRAME_CFRAME && f)
        f = rd_ptr(f + L->cframe_current, ok);
    return f;
}

/* Reads down from cur, at most hops frames, to the frame at addr: 1 with
 * that frame in *chk and its caller in *up, 0 if not found or a read
 * failed. */
static int read_down_to(uintptr_t cur, uintptr_t addr, unsigned hops,
                        struct raw_frame *chk, uintptr_t *up)
{
    for (unsigned h = 0; cur && h < hops; h++) {
        int owner;
        if (read_frame(cur, chk, up, &owner) < 0)
            return 0;
        if (cur == addr)
            return 1;
        if (*up == cur)
            return 0;
        cur = *up;
    }
    return 0;
}

/* Whether frame f (as read before) is within ALIVE_HOPS of cur, the
 * thread's current top (it may have called deeper), with the same code
 * and caller. */
static int reachable(uintptr_t cur, const struct raw_frame *f)
{
    struct raw_frame chk;
    uintptr_t up;
    return read_down_to(cur, f->addr, ALIVE_HOPS, &chk, &up) &&
           chk.code == f->code && up == f->prev;
}

/* Checkpoints of a deep walk: after reading walk[m] (m = CHECK_FIRST,
 * then four times as deep each time) the thread's current top is looked
 * for among the frames read before.  Found at walk[p], with the code and
 * caller read then, and walk[p + 1] still at the instruction read then
 * (so walk[p] is the same call, not one pushed again at its address),
 * walk[p] lived from its read to the checkpoint: walk[p + 1..m] were
 * suspended under it when read.  A stack that shrinks while it is read
 * (a deep recursion returning) loses its first frames before the second
 * read can see them; the checkpoints show which of them were read in
 * time (covered_from). */
#define CHECK_FIRST 64
#define CHECK_MAX   6
static struct {
    int n, next;
    struct { int p, m; uint64_t ns; } at[CHECK_MAX];
} checks;

static uint64_t now_ns(void) { return pp_clock_ns(CLOCK_MONOTONIC); }

/* When the innermost frame the walk kept was read: a walk that starts
 * again under frames that returned as it read them holds the stack of
 * that later read (walk_frames). */
static uint64_t top_read_ns;

static void checkpoint(uintptr_t tstate, int m)
{
    checks.next = m * 4;
    if (checks.n == CHECK_MAX)
        return;
    int ok = 1;
    uintptr_t top = thread_top(tstate, &ok);
    if (!ok || !top)
        return;
    for (int p = 0; p < m; p++) {
        if (walk[p].addr != top)
            continue;
        struct raw_frame a, b;
        uintptr_t up, up_b;
        int owner, owner_b;
        if (read_frame(top, &a, &up, &owner) > 0 && a.code == walk[p].code &&
            up == walk[p].prev && owner == walk[p].owner &&
            read_frame(walk[p + 1].addr, &b, &up_b, &owner_b) > 0 &&
            b.code == walk[p + 1].code && b.instr == walk[p + 1].instr &&
            up_b == walk[p + 1].prev) {
            checks.at[checks.n].p = p;
            checks.at[checks.n].m = m;
            checks.at[checks.n].ns = now_ns();
            checks.n++;
        }
        return;
    }
}

/* Walks one thread's frames into walk[] (innermost first).  Returns the
 * depth, -1 on failure; *truncated when the walk stopped at the depth cap
 * (a real deep stack, or a loop: the caller tells them apart).
 * *pair_ok: the first frame read was still in the thread's chain after
 * its caller was read, so the caller was then suspended in that call
 * (same_chain may then accept a walk whose first frame has returned).
 * Never for a generator's frame: one that yielded before its caller was
 * read, its caller then on a line after the resume, and was resumed
 * again before this check is in the chain as it was (its frame never
 * moves, and it gets back the same caller link).
 * Where every C-level entry into the interpreter pushes a shim frame
 * (layouts that skip shims), a whole chain ends at one: a chain that ends
 * at a Python frame was cut (a generator that yielded, and cleared its
 * caller, between our reads of it and of its caller).  A walk that
 * reaches the frame-cache stop (fc_stop) ends there, fc_stop.hit set: the
 * rest of the chain was read and checked when the anchor was proved. */
static int walk_frames(uintptr_t tstate, uintptr_t top, int *truncated,
                       int *pair_ok)
{
    int n = 0, owner = -1;
    *truncated = 0;
    *pair_ok = 0;
    fc_stop.hit = 0;
    pf_low = 0;
    checks.n = 0;
    checks.next = CHECK_FIRST;
    int reads = 0;
    for (uintptr_t f = top; f; ) {
        if (n == PP_MAX_DEPTH) {
            *truncated = 1;
            return n;
        }
        uintptr_t prev;
        /* Restarts (below) cannot make a loop of stale frames endless. */
        if (++reads > 2 * (int)PP_MAX_DEPTH)
            return -1;
        int r = read_frame(f, &walk[n], &prev, &owner);
        if (r < 0)
            return -1;
        if (r == 0 && popped(&walk[n], owner)) {
            /* It returned before the walk reached it, and so did every
             * frame read above it (a stack returning faster than it is
             * read): the walk starts again under it, which the second
             * read then checks as any other. */
            n = 0;
            *pair_ok = 0;
            checks.n = 0;
            checks.next = CHECK_FIRST;
            top_read_ns = now_ns();
        } else if (r > 0) {
            walk[n].prev = prev;
            walk[n].info = NULL;
            walk[n].owner = (int16_t)owner;
            n++;
            if (n == 2) {
                int ok = 1;
                uintptr_t now = thread_top(tstate, &ok);
                *pair_ok = ok && walk[0].owner != 1 &&
                           reachable(now, &walk[0]);
            }
            if (n - 1 == checks.next)
                checkpoint(tstate, n - 1);
            if (f == fc_stop.addr && walk[n - 1].code == fc_stop.code &&
                prev == fc_stop.prev && fc_stop.idx + n <= PP_MAX_DEPTH) {
                fc_stop.hit = 1;
                break;
            }
        } else if (n && walk[n - 1].shims_below < UINT16_MAX) {
            walk[n - 1].shims_below++;
        }
        if (prev == f)
            return -1;
        f = prev;
    }
    if (n && !fc_stop.hit && L->owner_skip_min >= 0 && !is_shim(owner))
        return -1;
    /* A caller has started (the interpreter's own __init__ shim aside):
     * one that has not is a frame pushed again at the address of one that
     * returned while the walk read it.  Where the shim's code object
     * cannot be found, lasti 0 says nothing. */
    for (int i = 1; i < n; i++) {
        int32_t lasti = lasti_of(L, &walk[i]);
        if (lasti < 0 || (lasti == L->lasti_unstarted && init_shim_code &&
                          walk[i].code != init_shim_code))
            return -1;
    }
    /* Without shims (3.10, 3.11) a chain ends at the thread's first
     * frame; a generator's frame (owner 1) ends one only once it has
     * yielded and cleared its caller: a chain cut there.  (A thread whose
     * first Python frame is a generator resumed from C loses those
     * samples.) */
    if (n && !fc_stop.hit && L->owner_skip_min < 0 && walk[n - 1].owner == 1)
        return -1;
    return n;
}

/* Whether a generator's frame g (owner 1 on every layout, as in
 * resolve.c), found again by the second read, still has the caller
 * link it had, read again just after its caller's instruction was.  A
 * generator that yields clears that link, and its frame never moves: one
 * that yielded just before its caller was read (the caller then on a line
 * after the resume) and was resumed again by the next read would
 * otherwise read as if it had stayed.  Other frames keep their link when
 * popped, so only a generator's can be checked this way. */
static int generator_still_under(const struct raw_frame *g)
{
    int ok = 1;
    return g->owner != 1 || (rd_ptr(g->addr + L->fr_previous, &ok) == g->prev && ok);
}

/* The index j > 0 of the frame at cur in walk[0..n), if it is there with
 * the code, caller and owner read then (chk, up, owner: as read now);
 * else -1. */
static int survivor_at(uintptr_t cur, const struct raw_frame *chk,
                       uintptr_t up, int owner, int n)
{
    for (int j = 1; j < n; j++)
        if (walk[j].addr == cur)
            return walk[j].code == chk->code && walk[j].prev == up &&
                   walk[j].owner == owner ? j : -1;
    return -1;
}

#define TOP_REREADS 4

/* The second read of a walk.  From the thread's current top, within
 * ALIVE_HOPS frames more than the walk read (the thread may have called
 * deeper meanwhile), find the first frame the walk read; or, when it has
 * returned, the second (if pair_ok); or, when the top is itself a frame
 * the walk read below its first (the thread has returned to it), that
 * frame.  Then read the chain again from there to the end: every frame
 * must be the same frame with the same code and caller, and every frame
 * but the first read also at the same instruction (a caller does not move
 * while its callee runs), except where the frames above it returned
 * meanwhile: a frame that has moved is where what is left of the stack
 * starts.  A frame popped and pushed again at the same address between
 * two reads of the first walk (recursion does that all the time) would
 * let a single check of the first frame pass a chain made of two moments;
 * reading every caller twice and finding it unchanged does not.
 * Returns 1 when the chain from walk[*from] down is the same, *from_instr
 * then the instruction of walk[*from] as read again and *from_ns when it
 * was read (for *from > 0). */
static int same_chain(uintptr_t tstate, uintptr_t cur, int n, int truncated,
                      int pair_ok, int *from, uintptr_t *from_instr,
                      uint64_t *from_ns)
{
    int k = -1, hops = 0, start = 0, rereads = TOP_REREADS, r = -1, owner;
    int pops = 0;
    struct raw_frame chk;
    uintptr_t up;
    pf_low = 0;
    while (cur && k < 0) {
        int ok = 1;
        if (hops++ >= ALIVE_HOPS + n)
            return 0;
        r = read_frame(cur, &chk, &up, &owner);
        int gone = r == 0 && popped(&chk, owner);
        if (gone && hops == 1 && up != cur && pops++ < ALIVE_HOPS + n) {
            /* The top returned as it was read (3.14+ clear its code):
             * its caller is the top now, or has returned too. */
            cur = up;
            hops = 0;
            continue;
        }
        if (r < 0 || gone) {
            /* The top returned as it was read and was freed (3.10), or
             * (3.14+) a frame under it did. */
            if (hops > 1 || rereads-- == 0 ||
                !(cur = thread_top(tstate, &ok)) || !ok)
                return 0;
            hops = 0;
            continue;
        }
        if (up == cur)
            return 0;
        if (cur == walk[0].addr)
            k = 0;
        else if (n > 1 && pair_ok && cur == walk[1].addr)
            k = 1;
        else if (hops == 1 && (k = survivor_at(cur, &chk, up, owner, n)) > 0) {
            start = k;
            *from_instr = chk.instr;
            *from_ns = now_ns();
        } else
            cur = up;
    }
    if (k < 0)
        return 0;
    int first = k;
    /* The frame found is compared as read then: read again, it could
     * have returned meanwhile. */
    int resume = 0;
    for (int again = 0; cur; again = 1) {
        if (k == n && (truncated || fc_stop.hit))
            break;                 /* the rest is beyond the depth cap, or
                                      below the frame-cache stop */
        if (again)
            r = read_frame(cur, &chk, &up, &owner);
        if (r < 0 || up == cur)
            return 0;
        if (r == 0 && popped(&chk, owner)) {
            /* It returned as this read reached it (a stack returning
             * faster than it is read), and so did all above it: what is
             * left starts under it. */
            if (k >= n || cur != walk[k].addr || up != walk[k].prev)
                return 0;
            resume = 1;
            k++;
        } else if (r > 0) {
            const struct raw_frame *w = &walk[k];
            if (k >= n || cur != w->addr || chk.code != w->code ||
                up != w->prev || owner != w->owner)
                return 0;
            if (resume || (k > start && chk.instr != w->instr)) {
                resume = 0;
                start = k;
                *from_instr = chk.instr;
                *from_ns = now_ns();
            } else if (k > first && k > start &&
                       !generator_still_under(&walk[k - 1])) {
                return 0;
            }
            k++;
        }
        cur = up;
    }
    if (k != n || resume)
        return 0;
    *from = start;
    return 1;
}

/* Where the part of walk[0..n) that can be shown to be one moment starts,
 * when the second read found it from walk[start] down: a checkpoint that
 * found walk[p] alive after walk[p + 1..m] were read extends it up to
 * walk[p] if it reaches that far down.  *ns: when that moment was (left
 * as it is when no checkpoint extends it). */
static int covered_from(int start, uint64_t *ns)
{
    int q = start;
    for (int i = checks.n - 1; i >= 0; i--)
        if (checks.at[i].m >= q && checks.at[i].p < q) {
            q = checks.at[i].p;
            *ns = checks.at[i].ns;
        }
    return q;
}

/* Drops walk[0..k): they returned before they could be shown to belong
 * with the rest.  walk[k] stands at instr.  Returns the new depth. */
static int keep_from(int n, int k, uintptr_t instr)
{
    memmove(walk, walk + k, (size_t)(n - k) * sizeof *walk);
    walk[0].instr = instr;
    return n - k;
}

/* 3.10 gives a returned frame object to the next call of its code: the
 * same address under the same caller.  A caller calling one function in a
 * tight loop can then fool both reads alike: each found the callee alive,
 * then the caller already past the call, and the second found it on the
 * very instruction the first did (a loop keeping step with the reads).
 * 3.11+ tell that by the caller's instruction (callsite.h); a 3.10 caller
 * can have a Python callee, run through C, on almost any instruction.  A
 * caller does not move while its callee lives: the nearest callers'
 * f_lasti are read again after the second read (and the clock read that
 * ends it), REREAD_ROUNDS times, each round but the first after a pause
 * of a length drawn from the clock (up to a quarter of a microsecond), so
 * that a loop cannot keep step with these reads too (the storm test once
 * wrote a stack whose caller all three reads in a row had found on the
 * same instruction after its callee had returned: one of 283,742 samples
 * on 3.10.13).  The first that moved is where the stack that is one
 * moment starts, at its new instruction (*instr).  Returns that frame's
 * index, from when none moved, -1 when one is unreadable. */
#define REREAD_CALLERS 4
#define REREAD_ROUNDS  3

static void pause_unevenly(void)
{
    uint64_t t = now_ns();
    uint64_t until = t + ((t * 0x9E3779B97F4A7C15ull) >> 56);
    while (now_ns() < until)
        ;
}

static int callers_stood_still(int from, int n, uintptr_t *instr)
{
    for (int round = 0; round < REREAD_ROUNDS; round++) {
        if (round)
            pause_unevenly();
        for (int j = from + 1; j < n && j <= from + REREAD_CALLERS; j++) {
            int32_t now;
            if (safe_read(&now, walk[j].addr + L->fr_instr, sizeof now) != 0)
                return -1;
            if ((uintptr_t)(intptr_t)now != walk[j].instr) {
                *instr = (uintptr_t)(intptr_t)now;
                return j;
            }
        }
    }
    return from;
}

/* The walked thread and, when a proof read it (now_known), its CPU time
 * after the walk, which the on-CPU flag then takes instead of reading it
 * again. */
struct cpu_marks {
    uint32_t tid;
    int now_known;
    uint64_t now;
};

/* Whether the thread state still belongs to the thread it named when t
 * was copied: a new thread's state carries its creator's id until the new
 * thread binds it, just before running its first frame. */
static int same_thread(uintptr_t tstate, const uint8_t *t)
{
    uint32_t off = L->ts_native_tid ? L->ts_native_tid : L->ts_thread_id;
    uintptr_t then;
    int ok = 1;
    memcpy(&then, t + off, sizeof then);
    return rd_ptr(tstate + off, &ok) == then && ok;
}

/* Whether frame f is a generator's with no caller link: one that is not
 * running (being resumed, or having yielded, in the instructions between
 * the interpreter's stores of its caller link and of the thread's current
 * frame). */
static int lone_generator(uintptr_t f)
{
    struct raw_frame rf;
    uintptr_t prev;
    int owner;
    return read_frame(f, &rf, &prev, &owner) > 0 &&
           owner == L->resumer.owned_by_generator && !prev;
}

/* Whether this walk is the sample's last try.  A running thread is past
 * a lone generator by the next walk, one stopped in it is there still at
 * the last: only that one pays walk_stopped_resumer's system calls. */
PP_CHILD_WRITES static int last_try;

/* A thread whose current frame is a lone generator: a running one leaves
 * that state within a re-read or two, one stopped in it stays there and
 * no re-read sees its stack.  So when the kernel's count of the thread's
 * CPU time is the same before and after, and the thread still stands in
 * that generator with no caller link, every read in between is taken as
 * one memory state (the stopped thread holds the GIL: nothing else
 * changes its frames), and the frame resumer_frame finds in it is taken
 * as the thread's innermost.  This is the one proof that leans on the
 * count, which can miss a short run: a run it missed would have had to
 * leave the state and come back to it in the same generator.  Returns the
 * depth, -1 when that cannot be shown. */
static int walk_stopped_resumer(uintptr_t tstate, const uint8_t *t,
                                struct cpu_marks *cpu, int *truncated)
{
    uint64_t before, after;
    int ok = 1;
    static int pair_ok;    /* static: this runs under sigsetjmp */
    if (!cpu->tid || pp_thread_cpu_ns(cpu->tid, &before) != 0)
        return -1;
    uintptr_t gen = thread_top(tstate, &ok);
    if (!ok || !gen || !lone_generator(gen))
        return -1;
    uintptr_t f = resumer_frame(L, tstate, gen);
    if (!f || f == gen)
        return -1;
    int n = walk_frames(tstate, f, truncated, &pair_ok);
    /* The count can miss a run of a few microseconds (walk_checked): the
     * thread must also still stand in the same generator, still lone. */
    if (n <= 0 || walk[0].addr != f || lasti_of(L, &walk[0]) < 0 ||
        pp_thread_cpu_ns(cpu->tid, &after) != 0 || after != before ||
        !same_thread(tstate, t) || thread_top(tstate, &ok) != gen || !ok ||
        !lone_generator(gen))
        return -1;
    cpu->now_known = 1;
    cpu->now = after;
    return n;
}

/* How long the two reads of an n-frame chain may take.  Two reads that
 * agree prove one moment only if the thread could not have gone round a
 * loop and come back between them: a sampler held up in the middle of its
 * reads (preempted or interrupted, on a busy machine) reads the thread at
 * moments far apart, each read then a near-random point of whatever the
 * thread repeats, and a frame that returned still reads as it was at an
 * address its caller's next call reuses.  On a host at its usual pace
 * nearly every walk takes under 2 microseconds: the budget is 250 ns a
 * unit, 16 units plus one a frame.  A host can be slower for minutes on
 * end (its memory shared with other guests: on the development VM every
 * walk then took 4 to 8 microseconds), and then the thread read runs
 * slower too: the unit follows the pace of the last PACE_WALKS walks
 * (3 times their median, at most 8 times the usual), so that a slow
 * host still samples while a sampler held up far beyond its usual pace
 * is still read again (pyprof(7), "Consistent stacks"). */
#define BUDGET_UNIT_NS 250u
#define BUDGET_UNIT_MAX_NS 2000u
#define BUDGET_UNITS(n) (16u + (uint64_t)(n))
#define PACE_WALKS 15

static struct {
    uint32_t ns_per_unit[PACE_WALKS];
    unsigned next, count;
} pace;

static void pace_note(uint64_t took, int n)
{
    uint64_t u = took / BUDGET_UNITS(n);
    pace.ns_per_unit[pace.next] = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
    pace.next = (pace.next + 1) % PACE_WALKS;
    if (pace.count < PACE_WALKS)
        pace.count++;
}

/* Whether a walk of n frames that took this long is over its budget. */
static int over_budget(uint64_t took, int n)
{
    if (took <= BUDGET_UNITS(n) * BUDGET_UNIT_NS)
        return 0;
    if (pace.count < PACE_WALKS)
        return 1;
    uint32_t v[PACE_WALKS];
    memcpy(v, pace.ns_per_unit, sizeof v);
    for (int i = 1; i < PACE_WALKS; i++)           /* insertion sort */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    uint64_t unit = 3 * (uint64_t)v[PACE_WALKS / 2];
    if (unit > BUDGET_UNIT_MAX_NS)
        unit = BUDGET_UNIT_MAX_NS;
    return took > BUDGET_UNITS(n) * unit;
}

/* Why the last walk_checked that returned -1 failed: its two reads
 * disagreed (or a frame was unreadable), or they agreed but took longer
 * than their budget (over_budget; pyvm_take_failed_reads). */
PP_CHILD_WRITES static enum { FAIL_TORN, FAIL_SLOW } walk_fail;
/* When the stack the last walk_checked returned was the thread's
 * (pyvm_thread.at_ns). */
static uint64_t walk_at_ns;
PP_CHILD_WRITES static uint64_t failed_reads[PYVM_FAILED_KINDS];

/* The GIL's mark taken before the last walk_checked read the thread's
 * current frame, when another thread was its last holder (ok). */
PP_CHILD_WRITES static struct {
    struct gil_mark m;
    int ok;
} walk_mark;

/* The walk is consistent if the thread did not run while it was read, or
 * else if reading it again finds the same chain (same_chain).  It did not
 * run if it did not hold the GIL at any time meanwhile (gil_quiet; gil is
 * the address of the interpreter's GIL state, 0 where switches are not
 * known).  The kernel's count of the thread's CPU time is no proof: it
 * can miss a run of a few microseconds (pyprof(7), "Consistent stacks").
 * Returns the depth, -1 for a torn or unreadable stack (try again), -2
 * when the thread state itself is gone. */
static int walk_checked(uintptr_t tstate, const uint8_t *t, uintptr_t gil,
                        struct cpu_marks *cpu, int *truncated)
{
    int ok = 1;
    walk_fail = FAIL_TORN;
    PP_CHILD_WRITES static struct gil_mark before, after;   /* static: under sigsetjmp */
    PP_CHILD_WRITES static uint64_t started;                /* static: under sigsetjmp */
    started = now_ns();
    /* Only another thread's being the last holder can prove anything. */
    int marked = gil && gil_mark(L, gil, &before) && before.holder != tstate;
    walk_mark.ok = marked;
    walk_mark.m = before;
    uintptr_t top = thread_top(tstate, &ok);
    if (!ok)
        return -2;
    static int pair_ok;    /* static: this runs under sigsetjmp */
    top_read_ns = started;
    int n = top ? walk_frames(tstate, top, truncated, &pair_ok) : 0;
    if (n < 0 && last_try && L->resumer.ts_exc_info && top &&
        lone_generator(top)) {
        walk_mark.ok = 0;
        walk_at_ns = started;
        return walk_stopped_resumer(tstate, t, cpu, truncated);
    }
    if (n < 0)
        return -1;
    walk_at_ns = top_read_ns;
    uintptr_t now_top = thread_top(tstate, &ok);
    if (!ok)
        return -2;
    /* The thread id was copied before the frames were read: a thread that
     * bound its state in between (3.10 and 3.11 give a new state its
     * creator's id until then) or a state freed and made again would
     * put one thread's frames under another's id. */
    if (!same_thread(tstate, t))
        return -1;
    if (marked && n && gil_mark(L, gil, &after) &&
        gil_quiet(tstate, &before, &after))
        return n;
    int from = 0;
    static uintptr_t from_instr;    /* static: under sigsetjmp */
    static uint64_t from_ns;        /* static: under sigsetjmp */
    if (n && !same_chain(tstate, now_top, n, *truncated, pair_ok, &from,
                         &from_instr, &from_ns))
        return -1;
    uint64_t again_ns = now_ns();
    if (n) {
        uint64_t took = again_ns - started;
        int over = over_budget(took, n);
        pace_note(took, n);
        if (over) {
            walk_fail = FAIL_SLOW;
            return -1;
        }
    }
    if (L->frames == FRAMES_OBJECTS && n > 1) {
        int moved = callers_stood_still(from, n, &from_instr);
        if (moved < 0)
            return -1;
        if (moved > from) {
            /* checkpoints vouch for frames above the one that moved: none
             * of them is one moment with it any more */
            checks.n = 0;
            from = moved;
            from_ns = now_ns();
        }
    }
    if (from > 0) {
        /* What is left is the stack of the read that found where it
         * starts (the second read's, or a checkpoint's), and takes that
         * read's time: the end of the second read is later by the time
         * the rest of the chain took to read again, tens of microseconds
         * under a deep stack, while it returns a frame every 100
         * nanoseconds or so (pyprof(7), "Deep stacks"). */
        int q = covered_from(from, &from_ns);
        n = keep_from(n, q, q < from ? walk[q].instr : from_instr);
        walk_at_ns = from_ns;
    }
    if (!n && now_top != top)
        return -1;
    return n;
}

/* walk_checked in one guarded section: nothing in it but reads. */
static int read_stack(uintptr_t tstate, const uint8_t *t, uintptr_t gil,
                      struct cpu_marks *cpu, int *truncated)
{
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        safe_section_faulted();
        return -1;
    }
    safe_section_arm(&env);
    int n = walk_checked(tstate, t, gil, cpu, truncated);
    safe_section_end();
    return n;
}

/* The ids the thread that forked this process may have in its thread
 * state (the parent's id of it, and, when the parent had itself been
 * forked by that thread, the id the grandparent's state gave it), and its
 * id here (pyvm_after_fork); 0 before any fork. */
PP_CHILD_WRITES static uint32_t forked_from[2], forked_as;

static uint32_t native_tid(const uint8_t *ts)
{
    if (L->ts_native_tid) {
        uint64_t v;
        memcpy(&v, ts + L->ts_native_tid, sizeof v);
        if (v && forked_as && ((uint32_t)v == forked_from[0] ||
                               (uint32_t)v == forked_from[1]))
            return forked_as;
        return (uint32_t)v;
    }
    if (pthread_tid_off < 0)
        return 0;
    uintptr_t pt;
    memcpy(&pt, ts + L->ts_thread_id, sizeof pt);
    int32_t tid = 0;
    if (!pt || safe_read(&tid, pt + (uintptr_t)pthread_tid_off, sizeof tid) != 0)
        return 0;
    /* The kernel clears the field when the thread ends (glibc registers
     * it with CLONE_CHILD_CLEARTID / set_tid_address). */
    if (tid == 0)
        return PYVM_TID_ENDED;
    return tid > 0 ? (uint32_t)tid : 0;
}

static pyvm_reject_fn reject_fn;

/* The id of the interpreter whose threads pyvm_sample is reading, and
 * whether its cyclic GC was running (on the thread holding its GIL). */
PP_CHILD_WRITES static int64_t interp_id;
PP_CHILD_WRITES static int gc_running;

/* 3.15, before a walk: where it may stop (fc_stop), from the thread's
 * trusted anchor and the thread state t as read before the walk. */
static void fc_begin(struct ts_cache *tc, const uint8_t *t)
{
    unsigned idx = 0;
    fc_stop.hit = 0;
    fc_stop.addr = tc ? framecache_stop(&tc->anchor, t, tc->frames, tc->depth,
                                        &idx) : 0;
    if (fc_stop.addr) {
        fc_stop.idx = idx;
        fc_stop.code = tc->frames[idx].code;
        fc_stop.prev = tc->frames[idx].prev;
    }
}

/* 3.15, after a sample (tc->frames now the whole stack; now: the anchor
 * and its count read after the walk): a full walk may prove the anchor; a
 * stack deeper than FC_MIN_DEPTH whose anchor is missing or has more than
 * FC_MOVE frames above it gets a new one, its innermost frame the thread
 * owns, to be proved by a later walk. */
static void fc_settle(struct ts_cache *tc, uintptr_t tstate, const uint8_t *t,
                      const uintptr_t now[2], int truncated)
{
    if (truncated) {
        tc->anchor.trusted = 0;
        return;
    }
    if (!fc_stop.hit)
        framecache_prove(&tc->anchor, t, now, tc->frames, tc->depth);
    if (tc->depth <= FC_MIN_DEPTH ||
        (tc->anchor.trusted && tc->anchor.idx + FC_MOVE >= tc->depth))
        return;
    int idx = framecache_pick(tc->frames, tc->depth);
    if (idx >= 0 && !(tc->anchor.trusted && (unsigned)idx == tc->anchor.idx))
        framecache_write(&tc->anchor, tstate, tc->frames, (unsigned)idx);
}

void pyvm_on_reject(pyvm_reject_fn fn) { reject_fn = fn; }

/* Hands the stack in out[] (its last kept frames) on to fn. */
static void pass_on(uintptr_t tstate, const struct ts_cache *tc,
                    uint32_t prev_seq, const struct cpu_marks *cpu,
                    unsigned flags, int kept, unsigned same, uint64_t at,
                    struct code_info *leaf, pyvm_thread_fn fn, void *ctx)
{
    /* The C function the innermost frame is calling goes on top of it
     * (python/ccall.h); the outer frames stay where they are in out[]. */
    if (leaf && kept > 0 && kept < (int)PP_MAX_DEPTH) {
        out[PP_MAX_DEPTH - 1 - kept] =
            (struct pyvm_frame){ .code = leaf, .line = 0, .addr = 0 };
        kept++;
    }
    struct pyvm_thread th = {
        .at_ns = at,
        .tstate = tstate,
        .native_tid = cpu->tid,
        .cpu_known = cpu->now_known,
        .cpu_ns = cpu->now,
        .flags = flags,
        .depth = (unsigned)kept,
        .same_outer = same <= (unsigned)kept && prev_seq ? same : 0,
        .seq = tc ? tc->seq : 0,
        .prev_seq = prev_seq,
        .frames = out + PP_MAX_DEPTH - kept,
    };
    th.interp = interp_id;
    if (gc_running && (flags & PP_SAMPLE_HOLDS_GIL))
        th.flags |= PP_SAMPLE_IN_GC;
    out_tstate = tstate;
    out_seq = th.seq;
    /* A thread state whose thread id is not set yet (a thread starting:
     * CPython binds it to its OS thread as the thread begins to run) is
     * no thread's sample yet: written with its real id or not at all.
     * Unless ids are not known at all (3.10 where glibc's descriptor was
     * not understood: every id is 0). */
    if (!th.native_tid && (L->ts_native_tid || pthread_tid_off >= 0))
        return;
    fn(ctx, &th);
}

/* A thread that has not taken the GIL since a mark taken before its
 * previous sample's walk, another thread being the last holder then and
 * now with no switch between (gil_quiet), has run no Python code since;
 * and only a thread changes its own frames.  Its previous sample is then
 * its stack now and is passed on again unread (pyprof(7), "Consistent
 * stacks").  The thread id and frame word of the thread state, as copied
 * this tick, must be what they were: a thread state freed and made again
 * at the same address is not the same thread.  Returns 1 when it was. */
static int sample_unrun(uintptr_t tstate, struct ts_cache *tc,
                        const uint8_t *t, uintptr_t holder, uintptr_t gil,
                        const struct cpu_marks *cpu, pyvm_thread_fn fn,
                        void *ctx)
{
    struct gil_mark now;
    uintptr_t top;
    memcpy(&top, t + L->ts_frame, sizeof top);
    if (!gil || !tc || !tc->parked || tc->parked_tid != cpu->tid ||
        tc->parked_top != top || tc->evictions != codecache_evictions() ||
        !gil_mark(L, gil, &now) || !gil_quiet(tstate, &tc->parked_mark, &now))
        return 0;
    uint32_t prev_seq = tc->seq;
    /* out[] still holds that sample when no other thread's came since. */
    unsigned depth = tc->out_depth, same = depth;
    if (out_tstate != tstate || out_seq != prev_seq)
        depth = (unsigned)resolve_emit_cached(tc, out, &same);
    tc->out_depth = depth;
    tc->seen = tick_no;
    tc->seq = ++sample_seq;
    pass_on(tstate, tc, prev_seq, cpu,
            (holder == tstate ? PP_SAMPLE_HOLDS_GIL : 0) |
            (tc->truncated ? PP_SAMPLE_TRUNCATED : 0) | exc_state_flag(t),
            (int)depth, same, 0,
            tc->leaf_gen == ccall_generation() ? tc->leaf : NULL, fn, ctx);
    return 1;
}

/* Samples one thread state; returns 1 if passed to fn, 0 if rejected.
 * A torn read costs only another walk (about a microsecond on a shallow
 * stack), and on fast recursion up to three walks in four are torn, nearly
 * independently of the last: up to MAX_RETRIES re-reads, and at most
 * TICK_RETRIES for all threads of a tick, so that many running threads
 * (a free-threaded build) cannot stretch a tick without bound. */
static int sample_thread(uintptr_t tstate, const uint8_t *ts, uintptr_t holder,
                         uintptr_t gil, pyvm_thread_fn fn, void *ctx)
{
    for (int attempt = 0; attempt <= MAX_RETRIES; attempt++) {
        uint8_t cur[4096];
        if (attempt && !tick_retries)
            break;
        if (attempt)
            tick_retries--;
        last_try = attempt == MAX_RETRIES || !tick_retries;
        if (attempt && safe_read(cur, tstate, L->ts_read) != 0)
            return 0;
        const uint8_t *t = attempt ? cur : ts;
        int truncated = 0;
        struct cpu_marks cpu = { .tid = native_tid(t) };
        struct ts_cache *was = ts_cache_for(tstate);
        if (!attempt &&
            sample_unrun(tstate, was, t, holder, gil, &cpu, fn, ctx))
            return 1;
        if (was)
            was->parked = 0;      /* its frames are about to be rewritten */
        int fc = was && framecache_usable(tstate);
        fc_begin(fc ? was : NULL, t);
        /* The handled exceptions are read from the thread's live items,
         * once before the walk and once after it: a thread that left its
         * stack for an except block between the two (or an except block
         * for a stack without one) would otherwise give the walk's stack
         * the other moment's flag.  A sample is in an exception only if
         * it was at both ends of its walk (pyprof(7), "Exceptions";
         * integration test
         * exceptions::exception_mode_keeps_the_samples_taken_in_except_blocks,
         * whose plain_work once had one such sample on 3.15). */
        unsigned exc_before = exc_state_flag(t);
        int n = read_stack(tstate, t, gil, &cpu, &truncated);
        if (n == -2)
            return 0;
        if (n < 0) {
            failed_reads[walk_fail == FAIL_SLOW ? PYVM_FAILED_SLOW
                                                : PYVM_FAILED_TORN]++;
            continue;
        }
        if (truncated && has_cycle(n)) {
            failed_reads[PYVM_FAILED_OTHER]++;
            continue;
        }
        /* Below the stop, the walk's frames are the anchor's only if the
         * anchor frame lived through the walk. */
        uintptr_t fc_now[2] = { 0, 0 };
        fc = fc && framecache_now(tstate, fc_now) == 0;
        if (fc_stop.hit &&
            !(fc && framecache_held(&was->anchor, t, fc_now, fc_stop.idx))) {
            failed_reads[PYVM_FAILED_OTHER]++;
            continue;
        }

        struct ts_cache *tc = was;
        uint32_t prev_seq = tc ? tc->seq : 0;
        if (tc) {
            tc->seen = tick_no;
            tc->seq = ++sample_seq;
        }
        unsigned same = 0, base = fc_stop.hit ? fc_stop.idx : 0;
        int kept = base ? resolve_hit(tc, walk, n, base,
                                      out_tstate == tstate &&
                                      out_seq == prev_seq, out, &same) : -2;
        if (kept == -2) {
            n = resolve_fill_below(tc, walk, base, n);
            kept = n ? resolve(tc, walk, n, out, &same) : 0;
        }
        if (kept < 0) {
            if (tc)
                tc->depth = 0;
            failed_reads[PYVM_FAILED_OTHER]++;
            continue;
        }
        if (fc && tc)
            fc_settle(tc, tstate, t, fc_now, truncated);
        /* The GIL quiet from its mark to now would show the walk read one
         * unmoving stack, and that stack the thread's until the GIL moves
         * (sample_unrun). */
        if (tc && walk_mark.ok && kept > 0 &&
            kept == (int)(tc->depth + tc->markers) &&
            cpu.tid && cpu.tid != PYVM_TID_ENDED) {
            tc->parked = 1;
            tc->parked_mark = walk_mark.m;
            tc->parked_tid = cpu.tid;
            memcpy(&tc->parked_top, t + L->ts_frame, sizeof tc->parked_top);
            tc->truncated = (uint8_t)truncated;
        }
        /* Only a whole stack's innermost frame: one whose callees were
         * dropped as incomplete is not standing on a C call. */
        struct code_info *leaf = kept > 0 && walk[0].info ?
                                 ccall_callee(&walk[0]) : NULL;
        if (tc) {
            tc->leaf = leaf;
            tc->leaf_gen = ccall_generation();
            tc->out_depth = (unsigned)kept;
        }
        pass_on(tstate, tc, prev_seq, &cpu,
                (holder == tstate ? PP_SAMPLE_HOLDS_GIL : 0) |
                (truncated ? PP_SAMPLE_TRUNCATED : 0) |
                (exc_before ? exc_state_flag(t) : 0),
                kept, same, walk_at_ns, leaf, fn, ctx);
        return 1;
    }
    struct ts_cache *tc = ts_cache_for(tstate);
    if (tc)
        tc->depth = 0;       /* the next sample must not reuse across a gap */
    if (reject_fn)
        reject_fn(tstate, native_tid(ts));
    return 0;
}

int pyvm_frame_still_on(uintptr_t tstate, const struct pyvm_frame *f,
                        unsigned hops)
{
    if (!L || !f->addr || !f->code)
        return 0;
    /* One guarded section for the run of reads, as a walk has. */
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        safe_section_faulted();
        return 0;
    }
    safe_section_arm(&env);
    pf_low = 0;
    int ok = 1;
    uintptr_t cur = thread_top(tstate, &ok), up;
    struct raw_frame chk;
    int found = ok && read_down_to(cur, f->addr, hops, &chk, &up) &&
                chk.code == f->code->addr;
    safe_section_end();
    return found;
}

void pyvm_take_failed_reads(uint64_t counts[PYVM_FAILED_KINDS])
{
    for (int i = 0; i < PYVM_FAILED_KINDS; i++) {
        counts[i] += failed_reads[i];
        failed_reads[i] = 0;
    }
}

int pyvm_sample(pyvm_thread_fn fn, void *ctx, unsigned *rejected)
{
    int ok = 1, passed = 0;
    *rejected = 0;
    if (!L)
        return -1;
    codecache_new_tick();
    tick_no++;
    tick_retries = TICK_RETRIES;
    uintptr_t interp = rd_ptr(runtime + L->rt_interp_head, &ok);
    if (!ok)
        return -1;
    for (int ni = 0; interp && ni < MAX_INTERPS; ni++) {
        if (safe_read(&interp_id, interp + L->is_id, sizeof interp_id) != 0)
            return passed ? passed : -1;
        int32_t collecting = 0;
        gc_running = L->is_gc_collecting &&
                     safe_read(&collecting, interp + L->is_gc_collecting,
                               sizeof collecting) == 0 && collecting != 0;
        uintptr_t gil;
        uintptr_t holder = gil_holder(L, runtime, interp, &gil, &ok);
        uintptr_t tstate = rd_ptr(interp + L->is_threads_head, &ok);
        for (int nt = 0; tstate && ok && nt < MAX_THREADS; nt++) {
            uint8_t ts[4096];
            if (safe_read(ts, tstate, L->ts_read) != 0) {
                (*rejected)++;
                break;
            }
            if (sample_thread(tstate, ts, holder, gil, fn, ctx))
                passed++;
            else
                (*rejected)++;
            memcpy(&tstate, ts + L->ts_next, sizeof tstate);
        }
        interp = rd_ptr(interp + L->is_next, &ok);
        if (!ok)
            return passed ? passed : -1;
    }
    return passed;
}

void pyvm_after_fork(uint32_t forker, uint32_t pid)
{
    memset(failed_reads, 0, sizeof failed_reads);   /* the parent's */
    forked_from[1] = forked_as && forker == forked_as ? forked_from[0] : 0;
    forked_from[0] = forker;
    forked_as = pid;
    out_tstate = 0;
    caches_gen++;
}
