/*
 * task_frames.c — asyncio tasks on a thread's stack (task_frames.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "base/image_mem.h"
#include "pyprof/format.h"
#include "python/asyncio_tasks.h"
#include "python/codecache.h"
#include "sample/pseudo_frames.h"
#include "sample/task_frames.h"

/* Pseudo-frames of task names kept; another name takes over a slot (and
 * gets a CODE record of its own: the entry is made anew).  Pending tasks
 * bring up to 64 names a tick (sampler.c), so room for several times
 * that, lest names that take turns write their records again and again. */
#define NAMES 512

static struct name_slot {
    char name[TASK_NAME_MAX + 8];
    struct code_info code;
} names[NAMES];

static struct code_info *task_code(const char *name)
{
    char full[TASK_NAME_MAX + 8];
    snprintf(full, sizeof full, *name ? "<task %s>" : "<task>", name);
    struct name_slot *s = &names[pp_hash_bytes(full, strlen(full)) % NAMES];
    if (!s->code.qualname || strcmp(s->name, full)) {
        memset(s, 0, sizeof *s);
        memcpy(s->name, full, sizeof full);
        s->code.qualname = s->name;
        s->code.name = s->name;
        s->code.filename = "~";
    }
    return &s->code;
}

static struct task_chain chain;
static struct pyvm_frame *buf;
static struct pyvm_thread spliced_t;

/* Appends to buf[n..cap) each link of c, innermost first: its await
 * stack, then its <task NAME>.  Returns the new n. */
static unsigned put_links(const struct task_chain *c, unsigned n, unsigned cap)
{
    for (unsigned k = 0; k < c->n && n < cap; k++) {
        const struct task_link *l = &c->links[k];
        for (unsigned i = 0; i < l->nframes && n < cap; i++)
            buf[n++] = l->frames[i];
        if (n < cap)
            buf[n++] = (struct pyvm_frame){ .code = task_code(l->name), .line = 0 };
    }
    return n;
}

const struct pyvm_thread *task_frames(const struct pyvm_thread *t, int *spliced)
{
    *spliced = 0;
    if (!t->depth || !asyncio_task_chain(t->tstate, &chain))
        return t;
    unsigned k = 0;
    while (k < t->depth && t->frames[k].addr != chain.frame)
        k++;
    if (k == t->depth)
        return t;
    if (!buf && !(buf = image_mem_alloc(PP_MAX_DEPTH * sizeof *buf)))
        return t;
    /* innermost first: the running task's frames, its <task>, then each
     * awaiter's await stack and <task>, then the event loop's frames */
    unsigned n = 0;
    for (unsigned i = 0; i <= k; i++)
        buf[n++] = t->frames[i];
    n = put_links(&chain, n, PP_MAX_DEPTH);
    unsigned rest = t->depth - k - 1, room = PP_MAX_DEPTH - n;
    unsigned kept = rest < room ? rest : room;
    memcpy(buf + n, t->frames + k + 1, kept * sizeof *buf);
    spliced_t = *t;
    spliced_t.frames = buf;
    spliced_t.depth = n + kept;
    if (kept < rest)
        pseudo_cut(&spliced_t);
    *spliced = 1;
    return &spliced_t;
}

static struct code_info waiting_code = { .qualname = "<waiting tasks>",
                                         .name = "<waiting tasks>", .filename = "~" };
static struct pyvm_thread waiting_t;

const struct pyvm_thread *task_wait_frames(const struct task_chain *c,
                                           const struct pyvm_thread *loop)
{
    if (!buf && !(buf = image_mem_alloc(PP_MAX_DEPTH * sizeof *buf)))
        return NULL;
    /* room kept for the outermost pseudo-frame */
    unsigned n = put_links(c, 0, PP_MAX_DEPTH - 1);
    buf[n++] = (struct pyvm_frame){ .code = &waiting_code, .line = 0 };
    waiting_t = *loop;
    waiting_t.frames = buf;
    waiting_t.depth = n;
    waiting_t.seq = waiting_t.prev_seq = 0;
    waiting_t.same_outer = 0;
    waiting_t.flags = 0;
    return &waiting_t;
}
