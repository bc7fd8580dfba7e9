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
