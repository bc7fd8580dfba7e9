/*
 * out_speedscope.c — speedscope's file format: one sampled profile per
 * process and thread, its samples in time order, each weighted with the
 * nanoseconds it stood for (timeline.h), so that speedscope's time-order
 * view shows when things ran as well as its left-heavy and sandwich views
 * show how long.  Frames are functions (qualname, file, first line): a
 * call stays one bar in the time-order view while its line changes.
 * Time with no sample kept is an empty stack, which speedscope shows as
 * a gap.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pyprof/format.h"
#include "timeline.h"

/* Model function of each of the file's codes (-1: none). */
static long *code_funcs(const struct model *m, const struct rd_file *f)
{
    long *fn = malloc((f->ncodes ? f->ncodes : 1) * sizeof *fn);
    if (!fn)
        return NULL;
    for (size_t c = 0; c < f->ncodes; c++) {
        const struct rd_code *k = &f->codes[c];
        fn[c] = c && k->qualname ? model_func_find(m, rd_string(f, k->qualname),
                                                  rd_string(f, k->filename),
                                                  k->firstlineno)
                                 : -1;
    }
    return fn;
}

/* Each node's stack as written ("3,17,42"), kept after its first sample:
 * the same stacks come back sample after sample, and walking and printing
 * them again was most of the time.  Kept up to KEEP_CAP bytes; stacks
 * past that are written out anew each time. */
#define KEEP_CAP (64u << 20)

struct stacks {
    const struct rd_file *f;
    const long *fn;
    uint64_t *at;               /* node -> (offset + 1) << 24 | length     */
    uint64_t *at_cut;           /* the same under <truncated> (TL_CUT)     */
    long trunc_fn;              /* the model's <truncated> function, or -1 */
    char *kept;
    size_t used, cap;
    char *buf;                  /* one stack: PP_MAX_DEPTH numbers + 1    */
};

#define STACK_BUF ((PP_MAX_DEPTH + 1) * 12u)   /* + <truncated> */

static size_t put_num(char *b, unsigned long v)
{
    char t[24];
    size_t n = 0, k = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (n)
        b[k++] = t[--n];
    return k;
}

/* leaf's functions, outermost first, comma-separated into s->buf; under
 * the <truncated> function if cut. */
static size_t render(struct stacks *s, uint32_t leaf, int cut)
{
    const struct rd_file *f = s->f;
    size_t depth = 0;
    for (uint32_t k = leaf; k && depth < PP_MAX_DEPTH; k = f->nodes[k].parent)
        depth += s->fn[f->nodes[k].code] >= 0;
    cut = cut && s->trunc_fn >= 0;
    /* written from the end: the walk goes from the leaf outwards */
    char num[24];
    size_t end = STACK_BUF, d = 0;
    for (uint32_t k = leaf; k && d < depth; k = f->nodes[k].parent) {
        long fn = s->fn[f->nodes[k].code];
        if (fn < 0)
            continue;
        size_t n = put_num(num, (unsigned long)fn);
        if (d++)
            s->buf[--end] = ',';
        end -= n;
        memcpy(s->buf + end, num, n);
    }
    if (cut) {
        size_t n = put_num(num, (unsigned long)s->trunc_fn);
        if (d)
            s->buf[--end] = ',';
        end -= n;
        memcpy(s->buf + end, num, n);
    }
    memmove(s->buf, s->buf + end, STACK_BUF - end);
    return STACK_BUF - end;
}

static void put_stack(FILE *o, struct stacks *s, uint32_t event_leaf)
{
    int cut = (event_leaf & TL_CUT) != 0;
    uint32_t leaf = event_leaf & ~TL_CUT;
    uint64_t *slot = cut ? &s->at_cut[leaf] : &s->at[leaf];
    uint64_t a = *slot;
    if (a) {
        fwrite(s->kept + (a >> 24) - 1, 1, a & 0xffffff, o);
        return;
    }
    size_t n = render(s, leaf, cut);
    fwrite(s->buf, 1, n, o);
    if (!n || s->used + n > KEEP_CAP)
        return;
    if (s->used + n > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1u << 16;
        while (cap < s->used + n)
            cap *= 2;
        char *k = realloc(s->kept, cap);
        if (!k)
            return;
        s->kept = k;
        s->cap = cap;
    }
    memcpy(s->kept + s->used, s->buf, n);
    *slot = (uint64_t)(s->used + 1) << 24 | n;
    s->used += n;
}

static int profile(FILE *o, const struct tl_proc *t, size_t th, struct stacks *st,
                   int first)
{
    const struct m_proc *p = &t->m->procs[t->proc];
    /* a thread the second reading did not meet: an empty profile */
    static const struct tl_thread none;
    const struct tl_thread *tt = th < t->nthreads ? &t->threads[th] : &none;
    uint64_t off = tl_proc_offset(t->m, t->proc);
    char name[1400], argv[256], tn[600];
    model_proc_label(p, argv, sizeof argv);
    snprintf(name, sizeof name, "pid %lld %s: %s (tid %u, %llu sample%s)",
             (long long)p->f->pid, argv, out_thread_name(&p->threads[th], tn, sizeof tn),
             p->threads[th].tid, (unsigned long long)tt->samples,
             tt->samples == 1 ? "" : "s");
    fputs(first ? "  {" : ",\n  {", o);
    fputs("\"type\": \"sampled\", \"name\": ", o);
    out_json_str(o, name);
    fprintf(o, ", \"unit\": \"nanoseconds\", \"startValue\": %llu, \"endValue\": %llu,"
               "\n   \"samples\": [",
            (unsigned long long)(off + tt->start), (unsigned long long)(off + tt->end));
    struct tl_iter *it = tl_iter_new(t, th);
    struct tl_event e;
    if (!it)
        return -1;
    for (uint64_t i = 0; tl_iter_next(it, &e); i++) {
        fputs(i ? (i % 16 ? ",[" : ",\n    [") : "[", o);
        if (e.leaf)
            put_stack(o, st, e.leaf);
        fputc(']', o);
    }
    fputs("],\n   \"weights\": [", o);
    tl_iter_start(t, th, it);
    for (uint64_t i = 0; tl_iter_next(it, &e); i++)
        fprintf(o, i ? (i % 32 ? ",%llu" : ",\n    %llu") : "%llu",
                (unsigned long long)e.dur);
    fputs("]}", o);
    int failed = it->failed;
    free(it);
    return failed ? -1 : 0;
}

/* The profile speedscope opens with: the thread with the most samples. */
static size_t busiest(const struct model *m)
{
    size_t k = 0, best = 0;
    uint64_t most = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        for (size_t t = 0; m->procs[i].samples && t < m->procs[i].nthreads; t++)
            if (m->procs[i].threads[t].samples) {
                if (m->procs[i].threads[t].samples > most) {
                    most = m->procs[i].threads[t].samples;
                    best = k;
                }
                k++;
            }
    return best;
}

int out_speedscope(FILE *o, const struct model *m, const struct out_options *opt)
{
    (void)opt;
    fprintf(o, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
               " \"exporter\": \"pyprof-merge %s\", \"name\": ", PACKAGE_VERSION);
    char argv[256], name[320];
    model_proc_label(&m->procs[0], argv, sizeof argv);
    snprintf(name, sizeof name, "%s (%s)", argv, out_mode_name(m->opt.mode));
    out_json_str(o, name);
    fprintf(o, ", \"activeProfileIndex\": %zu,\n \"shared\": {\"frames\": [\n",
            busiest(m));
    for (size_t i = 0; i < m->nfuncs; i++) {
        fputs(i ? ",\n  {\"name\": " : "  {\"name\": ", o);
        out_json_str(o, m->funcs[i].name);
        fputs(", \"file\": ", o);
        out_json_str(o, m->funcs[i].file);
        fprintf(o, ", \"line\": %u}", m->funcs[i].firstline);
    }
    fputs("]},\n \"profiles\": [\n", o);
    struct stacks st = { .buf = malloc(STACK_BUF) };
    int r = st.buf ? 0 : -1, first = 1;
    for (size_t i = 0; i < m->nprocs && !r; i++) {
        const struct m_proc *p = &m->procs[i];
        if (!p->samples)
            continue;
        struct tl_proc *t = tl_read(m, i);
        long *fn = t ? code_funcs(m, t->f) : NULL;
        uint64_t *at = t ? calloc(t->f->nnodes ? t->f->nnodes : 1, sizeof *at) : NULL;
        uint64_t *at_cut = t ? calloc(t->f->nnodes ? t->f->nnodes : 1, sizeof *at_cut)
                             : NULL;
        if (!fn || !at || !at_cut) {
            free(at);
            free(at_cut);
            free(fn);
            tl_free(t);
            r = -1;
            break;
        }
        st.f = t->f;
        st.fn = fn;
        st.at = at;
        st.at_cut = at_cut;
        st.trunc_fn = model_func_find(m, M_TRUNCATED, M_TRUNCATED_FILE, 0);
        st.used = 0;
        for (size_t th = 0; th < p->nthreads && !r; th++) {
            if (!p->threads[th].samples)
                continue;
            r = profile(o, t, th, &st, first);
            first = 0;
        }
        free(at);
        free(at_cut);
        free(fn);
        tl_free(t);
    }
    free(st.kept);
    free(st.buf);
    fputs("\n ]}\n", o);
    return r;
}
