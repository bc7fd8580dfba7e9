/*
 * pseudo_frames.c — <interpreter N> and <GC> (pseudo_frames.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/image_mem.h"
#include "pyprof/format.h"
#include "python/codecache.h"
#include "sample/pseudo_frames.h"

/* Pseudo-frames of interpreters kept; another interpreter's id takes over
 * a slot (and gets a CODE record of its own: file_id reset). */
#define MARKS 16

static struct mark {
    int64_t interp;
    char name[40];
    struct code_info code;
} marks[MARKS];

struct code_info *pseudo_interp(int64_t id)
{
    struct mark *m = &marks[(uint64_t)id % MARKS];
    if (!m->code.qualname || m->interp != id) {
        memset(m, 0, sizeof *m);
        m->interp = id;
        snprintf(m->name, sizeof m->name, "<interpreter %lld>", (long long)id);
        m->code.qualname = m->name;
        m->code.name = m->name;
        m->code.filename = "~";
        m->code.boundary = (uint64_t)id + 1;
    }
    return &m->code;
}

static struct code_info gc_code = {
    .qualname = "<GC>", .name = "<GC>", .filename = "~",
};

void pseudo_cut(struct pyvm_thread *t)
{
    t->flags |= PP_SAMPLE_TRUNCATED;
    t->seq = t->prev_seq = 0;
    t->same_outer = 0;
}

static struct pyvm_frame *gc_buf;
static struct pyvm_thread gc_t;

const struct pyvm_thread *pseudo_gc_on_top(const struct pyvm_thread *t)
{
    if (!gc_buf && !(gc_buf = image_mem_alloc(PP_MAX_DEPTH * sizeof *gc_buf)))
        return t;
    unsigned n = t->depth < PP_MAX_DEPTH - 1 ? t->depth : PP_MAX_DEPTH - 1;
    gc_buf[0] = (struct pyvm_frame){ .code = &gc_code, .line = 0 };
    memcpy(gc_buf + 1, t->frames, n * sizeof *t->frames);
    gc_t = *t;
    gc_t.frames = gc_buf;
    gc_t.depth = n + 1;
    /* The outer frames are t's: what the writer reuses of them holds,
     * unless the outermost had to go. */
    if (n < t->depth)
        pseudo_cut(&gc_t);
    return &gc_t;
}
