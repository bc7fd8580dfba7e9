/* out_common.c — small pieces every output writer needs. */
#include <string.h>

#include "output.h"

const char *out_mode_name(enum m_mode mode)
{
    return mode == MODE_CPU ? "cpu" : mode == MODE_GIL ? "gil" : "wall";
}

int out_group_frames(const struct model *m, const struct m_stack *s,
                     enum out_group g, char *a, char *b, size_t cap)
{
    a[0] = b[0] = 0;
    if (g == GROUP_NONE)
        return 0;
    const struct m_proc *p = &m->procs[s->proc];
    const char *argv0 = p->f->argc ? p->f->argv[0] : "?";
    const char *base = strrchr(argv0, '/');
    snprintf(a, cap, "process %lld %s", (long long)p->f->pid, base ? base + 1 : argv0);
    if (g == GROUP_PROCESS)
        return 1;
    if (s->thread && s->thread < p->nthreads && p->threads[s->thread].name)
        snprintf(b, cap, "thread %u %s", p->threads[s->thread].tid,
                 p->threads[s->thread].name);
    else
        snprintf(b, cap, "thread ?");
    return 2;
}

double out_duration(const struct m_proc *p)
{
    const struct rd_file *f = p->f;
    /* The monotonic span when the file has one: wall-clock start and end
     * are off by any step of the clock in between. */
    if (f->complete && f->span_ns)
        return (double)f->span_ns / 1e9;
    uint64_t last = f->complete && f->end_ns > f->last_tick_ns ? f->end_ns
                                                               : f->last_tick_ns;
    return last > f->start_ns ? (double)(last - f->start_ns) / 1e9 : 0;
}
