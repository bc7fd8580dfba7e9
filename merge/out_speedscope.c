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

/* The frames of leaf, outermost first, into path; returns how many. */
static size_t stack_of(const struct rd_file *f, const long *fn, uint32_t leaf,
                       long *path)
{
    size_t n = 0;
    for (uint32_t k = leaf; k && n < PP_MAX_DEPTH; k = f->nodes[k].parent)
        if (fn[f->nodes[k].code] >= 0)
            path[n++] = fn[f->nodes[k].code];
    for (size_t i = 0; i < n / 2; i++) {
        long x = path[i];
        path[i] = path[n - 1 - i];
        path[n - 1 - i] = x;
    }
    return n;
}

static int profile(FILE *o, const struct tl_proc *t, size_t th, const long *fn,
                   long *path, int first)
{
    const struct m_proc *p = &t->m->procs[t->proc];
    /* a thread the second reading did not meet: an empty profile */
    static const struct tl_thread none;
    const struct tl_thread *tt = th < t->nthreads ? &t->threads[th] : &none;
    uint64_t off = tl_proc_offset(t->m, t->proc);
    char name[512], argv[256];
    model_argv_str(p, argv, sizeof argv);
    snprintf(name, sizeof name, "pid %lld %s: %s (tid %u, %llu samples)",
             (long long)p->f->pid, argv, p->threads[th].name ? p->threads[th].name : "?",
             p->threads[th].tid, (unsigned long long)tt->samples);
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
        size_t n = e.leaf ? stack_of(t->f, fn, e.leaf, path) : 0;
        fputs(i ? (i % 16 ? ",[" : ",\n    [") : "[", o);
        for (size_t d = 0; d < n; d++)
            fprintf(o, d ? ",%ld" : "%ld", path[d]);
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
    model_argv_str(&m->procs[0], argv, sizeof argv);
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
    long *path = malloc(PP_MAX_DEPTH * sizeof *path);
    int r = path ? 0 : -1, first = 1;
    for (size_t i = 0; i < m->nprocs && !r; i++) {
        const struct m_proc *p = &m->procs[i];
        if (!p->samples)
            continue;
        struct tl_proc *t = tl_read(m, i);
        long *fn = t ? code_funcs(m, t->f) : NULL;
        if (!fn) {
            tl_free(t);
            r = -1;
            break;
        }
        for (size_t th = 0; th < p->nthreads && !r; th++) {
            if (!p->threads[th].samples)
                continue;
            r = profile(o, t, th, fn, path, first);
            first = 0;
        }
        free(fn);
        tl_free(t);
    }
    free(path);
    fputs("\n ]}\n", o);
    return r;
}
