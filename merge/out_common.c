/* out_common.c — small pieces every output writer needs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

const char *out_mode_name(enum m_mode mode)
{
    return mode == MODE_CPU ? "cpu" : mode == MODE_GIL ? "gil" :
           mode == MODE_EXC ? "exception" : mode == MODE_TASKS ? "tasks" : "wall";
}

int out_group_frames(const struct model *m, const struct m_stack *s,
                     enum out_group g, char *a, char *b, size_t cap)
{
    a[0] = b[0] = 0;
    if (g == GROUP_NONE)
        return 0;
    const struct m_proc *p = &m->procs[s->proc];
    if (g == GROUP_HOST) {
        snprintf(a, cap, "host %s", m->nhosts ? m->hosts[p->host] : "?");
        return 1;
    }
    if (g == GROUP_INTERP) {
        uint32_t in = model_stack_interp(m, s);
        if (in)
            snprintf(a, cap, "interpreter %u", in);
        else
            snprintf(a, cap, "interpreter main");
        return 1;
    }
    const char *argv0 = p->f->argc ? p->f->argv[0] : "?";
    const char *base = strrchr(argv0, '/');
    /* Pids of different hosts may be the same: the host says which. */
    if (m->nhosts > 1)
        snprintf(a, cap, "process %lld@%s %s", (long long)p->f->pid, m->hosts[p->host],
                 base ? base + 1 : argv0);
    else
        snprintf(a, cap, "process %lld %s", (long long)p->f->pid, base ? base + 1 : argv0);
    if (g == GROUP_PROCESS)
        return 1;
    char tn[600];
    if (s->thread && s->thread < p->nthreads && p->threads[s->thread].name)
        snprintf(b, cap, "thread %u %s", p->threads[s->thread].tid,
                 out_thread_name(&p->threads[s->thread], tn, sizeof tn));
    else
        snprintf(b, cap, "thread ?");
    return 2;
}

static int cmp_interp(const void *a, const void *b)
{
    const struct out_interp *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

size_t out_interps(const struct model *m, struct out_interp **v)
{
    *v = malloc((m->nstacks ? m->nstacks : 1) * sizeof **v);
    if (!*v)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < m->nstacks; i++)
        if (m->stacks[i].count)
            (*v)[n++] = (struct out_interp){ m->stacks[i].proc,
                model_stack_interp(m, &m->stacks[i]), m->stacks[i].count };
    qsort(*v, n, sizeof **v, cmp_interp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && (*v)[k - 1].proc == (*v)[i].proc && (*v)[k - 1].id == (*v)[i].id)
            (*v)[k - 1].samples += (*v)[i].samples;
        else
            (*v)[k++] = (*v)[i];
    }
    return k;
}

uint64_t out_duration_ns(const struct m_proc *p)
{
    const struct rd_file *f = p->f;
    /* The monotonic span when the file has one: wall-clock start and end
     * are off by any step of the clock in between. */
    if (f->complete && f->span_ns)
        return f->span_ns;
    uint64_t last = f->complete && f->end_ns > f->last_tick_ns ? f->end_ns
                                                               : f->last_tick_ns;
    return last > f->start_ns ? last - f->start_ns : 0;
}

double out_duration(const struct m_proc *p)
{
    return (double)out_duration_ns(p) / 1e9;
}

/* The span of one host's processes (host < 0: all), first start to last
 * end on that host's clock. */
static uint64_t host_span(const struct model *m, long host, uint64_t *first)
{
    /* In integers, ends capped at the largest int64 (pprof's times): a
     * forged span must not wrap around to a short run. */
    const uint64_t most = INT64_MAX;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        if (host >= 0 && m->procs[i].host != (uint32_t)host)
            continue;
        uint64_t start = m->procs[i].f->start_ns, d = out_duration_ns(&m->procs[i]);
        uint64_t end = start >= most || d >= most - start ? most : start + d;
        lo = start < lo ? start : lo;
        hi = end > hi ? end : hi;
    }
    *first = lo == UINT64_MAX ? 0 : lo;
    return hi > lo ? hi - lo : 0;
}

uint64_t out_tree_span(const struct model *m, uint64_t *first)
{
    if (m->nhosts <= 1)
        return host_span(m, -1, first);
    /* Several hosts: their clocks are not one clock.  The longest host's
     * span, from the earliest first start (pyprof(7), "Many hosts"). */
    uint64_t best = 0, lo = UINT64_MAX;
    for (size_t h = 0; h < m->nhosts; h++) {
        uint64_t f, span = host_span(m, (long)h, &f);
        best = span > best ? span : best;
        lo = f < lo ? f : lo;
    }
    *first = lo == UINT64_MAX ? 0 : lo;
    return best;
}

/* No overlong forms, no surrogates, nothing above U+10FFFF. */
size_t out_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
               c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n)
        return 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

double out_stack_ns(const struct model *m, const struct m_stack *s, uint64_t count)
{
    return (double)count * (double)m->procs[s->proc].f->interval_ns;
}

int out_cmp_self(const void *a, const void *b, void *mv)
{
    const struct model *m = mv;
    const struct m_func *x = &m->funcs[*(const uint32_t *)a],
                        *y = &m->funcs[*(const uint32_t *)b];
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

void out_json_str(FILE *o, const char *s)
{
    fputc('"', o);
    const unsigned char *u = (const unsigned char *)s;
    while (u && *u) {
        unsigned char c = *u;
        if (c >= 0x80) {
            size_t n = out_utf8_len(u);
            if (n)
                fwrite(u, 1, n, o);
            else
                fputs("\\ufffd", o);
            u += n ? n : 1;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", o);
        else if (c == '\t')
            fputs("\\t", o);
        else if (c < 0x20)
            fprintf(o, "\\u%04x", c);
        else
            fputc(c, o);
        u++;
    }
    fputc('"', o);
}

void out_escaped(FILE *o, const char *s)
{
    char e[4];
    for (; *s; s++)
        fwrite(e, 1, model_escape_byte((unsigned char)*s, e), o);
}

const char *out_thread_name(const struct m_thread *t, char *buf, size_t cap)
{
    if (!t->name)
        return "?";
    if (!t->os_name)
        return t->name;
    snprintf(buf, cap, "%s [OS: %s]", t->name, t->os_name);
    return buf;
}
