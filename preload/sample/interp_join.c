/*
 * interp_join.c — one sample per thread when it runs in a subinterpreter
 * (interp_join.h).
 */
#include <string.h>

#include "base/child_writes.h"
#include "base/image_mem.h"
#include "pyprof/c_call.h"
#include "pyprof/format.h"
#include "python/codecache.h"
#include "sample/interp_join.h"
#include "sample/pseudo_frames.h"

/* Threads in subinterpreters at one tick: more are taken alone. */
#define HELD_MAX 8
#define FRAMES_SIZE (PP_MAX_DEPTH * sizeof(struct pyvm_frame))

static struct held {
    int used;
    struct pyvm_thread t;        /* frames point into buf */
    struct pyvm_frame *buf;      /* PP_MAX_DEPTH, made on first use */
} held[HELD_MAX];

PP_CHILD_WRITES static unsigned nheld;   /* of held[] used: 0 without subinterpreters */

static struct pyvm_frame *joined_buf;
static struct pyvm_thread joined;

void interp_join_begin(void)
{
    for (int i = 0; i < HELD_MAX && nheld; i++)
        held[i].used = 0;
    nheld = 0;
}

static int has_joined_buf(void)
{
    if (!joined_buf)
        joined_buf = image_mem_alloc(FRAMES_SIZE);
    return joined_buf != NULL;
}

int interp_join_hold(const struct pyvm_thread *t)
{
    /* Without thread ids nothing tells whose caller a state is. */
    if (!t->native_tid)
        return 0;
    struct held *free_slot = NULL;
    for (int i = 0; i < HELD_MAX; i++) {
        /* A second subinterpreter of the same thread at once (one that
         * called into another): the one read first is held, the other
         * taken alone. */
        if (held[i].used && held[i].t.native_tid == t->native_tid)
            return 0;
        if (!held[i].used && !free_slot)
            free_slot = &held[i];
    }
    if (!free_slot)
        return 0;
    if (!free_slot->buf && !(free_slot->buf = image_mem_alloc(FRAMES_SIZE)))
        return 0;
    unsigned n = t->depth < PP_MAX_DEPTH ? t->depth : PP_MAX_DEPTH;
    memcpy(free_slot->buf, t->frames, n * sizeof *t->frames);
    free_slot->t = *t;
    free_slot->t.depth = n;
    free_slot->t.frames = free_slot->buf;
    free_slot->used = 1;
    nheld++;
    return 1;
}

/* Copies the innermost of t's frames, and the pseudo-frame of its
 * interpreter below them, to the front of joined_buf; returns how many
 * frames that is, and sets *cut when t's outermost had to go. */
static unsigned put_sub(const struct pyvm_thread *t, int *cut)
{
    unsigned n = t->depth < PP_MAX_DEPTH - 1 ? t->depth : PP_MAX_DEPTH - 1;
    *cut = n < t->depth;
    memcpy(joined_buf, t->frames, n * sizeof *t->frames);
    joined_buf[n] = (struct pyvm_frame){ .code = pseudo_interp(t->interp), .line = 0 };
    return n + 1;
}

const struct pyvm_thread *interp_join_alone(const struct pyvm_thread *t)
{
    if (!has_joined_buf())
        return t;
    int cut;
    joined = *t;
    joined.depth = put_sub(t, &cut);
    joined.frames = joined_buf;
    if (cut || (t->flags & PP_SAMPLE_TRUNCATED)) {
        pseudo_cut(&joined);
    } else {
        /* the pseudo-frame is one more unchanged outer frame */
        joined.same_outer = t->same_outer ? t->same_outer + 1 : 0;
    }
    return &joined;
}

/* Whether t's innermost frame is a C function (python/ccall.h) other than
 * one of _interpreters', which run code in a subinterpreter: a thread
 * calling it is not inside a subinterpreter now, whatever state of its
 * was read there earlier in the tick (it has returned meanwhile), and
 * that state is dropped: it is the thread's moment before this one. */
static int calls_other_c(const struct pyvm_thread *t)
{
    const struct code_info *c = t->depth ? t->frames[0].code : NULL;
    return c && pp_is_c_call(c->filename, c->qualname) &&
           strncmp(c->qualname, PP_C_CALL_BUILTIN "_interpreters.",
                   sizeof PP_C_CALL_BUILTIN "_interpreters." - 1);
}

/* Whether the thread of h, a subinterpreter's state read earlier in the
 * tick, is still inside the call that state was read in.  The caller's
 * state, read since, shows the caller's frames as they wait in that call
 * only if the thread never left it between the two reads; a thread that
 * returned meanwhile was read by its caller's state somewhere after the
 * call (a pool worker handing its result back, or closing the
 * interpreter), and joining the two would put a task's frames under
 * whatever ran next.  The held state's outermost frame lives as long as
 * the call, so finding it on that state's stack now, at its address with
 * its code, says the thread stayed.  A thread that left and entered
 * again with the same code at the same address between the two reads
 * would pass: the reads between are microseconds, a return from an
 * interpreter and a call into it again take a thread state's teardown
 * and making, and the GIL of each interpreter handed over twice. */
static int still_inside(const struct pyvm_thread *h)
{
    const struct pyvm_frame *outer = NULL;
    for (unsigned i = h->depth; i-- > 0 && !outer; )
        if (h->frames[i].addr)
            outer = &h->frames[i];
    /* pseudo-frames only: nothing to tell a call by, as before */
    if (!outer)
        return 1;
    /* below its innermost frame as read: the frames read, one shim per
     * entry from C among them, and room for calls made since */
    return pyvm_frame_still_on(h->tstate, outer, 2 * h->depth + 64);
}

const struct pyvm_thread *interp_join_with(const struct pyvm_thread *t)
{
    struct held *h = NULL;
    if (calls_other_c(t)) {
        interp_join_drop(t->native_tid, t->tstate);
        return t;
    }
    for (int i = 0; i < HELD_MAX && nheld && t->native_tid; i++)
        if (held[i].used && held[i].t.native_tid == t->native_tid &&
            held[i].t.tstate != t->tstate)
            h = &held[i];
    if (!h)
        return t;
    h->used = 0;
    nheld--;
    /* The thread left the call: the caller's state alone is its moment. */
    if (!(h->t.flags & PP_SAMPLE_TRUNCATED) && !still_inside(&h->t))
        return t;
    /* A subinterpreter's stack cut at the depth cap has lost the frames
     * that joined it to its callers: it stands alone, marked cut. */
    if (h->t.flags & PP_SAMPLE_TRUNCATED)
        return interp_join_alone(&h->t);
    if (!has_joined_buf())
        return t;
    int cut;
    unsigned n = put_sub(&h->t, &cut);
    unsigned room = PP_MAX_DEPTH - n, m = t->depth < room ? t->depth : room;
    memcpy(joined_buf + n, t->frames, m * sizeof *t->frames);
    joined = *t;
    joined.depth = n + m;
    joined.frames = joined_buf;
    joined.interp = h->t.interp;
    /* The thread holds the GIL of the interpreter it runs in, and collects
     * its garbage there; an except block in either part of its stack is
     * one it is in. */
    joined.flags = (h->t.flags & (PP_SAMPLE_HOLDS_GIL | PP_SAMPLE_IN_GC)) |
                   (t->flags & PP_SAMPLE_TRUNCATED) |
                   ((h->t.flags | t->flags) & PP_SAMPLE_EXCEPTION);
    if (cut || m < t->depth)
        pseudo_cut(&joined);
    /* else the caller's outer frames are the outer frames here too, and
     * its same_outer and sequence numbers hold as they are. */
    return &joined;
}

void interp_join_drop(uint32_t tid, uintptr_t tstate)
{
    for (int i = 0; i < HELD_MAX && nheld && tid; i++)
        if (held[i].used && held[i].t.native_tid == tid &&
            held[i].t.tstate != tstate) {
            held[i].used = 0;
            nheld--;
        }
}

const struct pyvm_thread *interp_join_leftover(void)
{
    for (int i = 0; i < HELD_MAX && nheld; i++)
        if (held[i].used) {
            held[i].used = 0;
            nheld--;
            return interp_join_alone(&held[i].t);
        }
    return NULL;
}
