/*
 * out_json.c — the document of pyprof-merge(1), JSON: totals, processes
 * (with the tree as id/parent), functions, stacks with counts (outermost
 * frame first), and problems.  Strings are escaped, and bytes that are not UTF-8 (a damaged
 * or forged file; CPython's own strings always are) become U+FFFD, so the
 * document stays valid JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pyprof/format.h"

static void counters(FILE *o, const struct rd_counters *c)
{
    fprintf(o, "{\"samples\": %llu, \"rejected\": %llu, \"missed\": %llu, "
               "\"sampler_cpu_ns\": %llu, \"ticks\": %llu, \"idle\": %llu, "
               "\"failed_reads\": {\"torn\": %llu, \"slow\": %llu, \"other\": %llu}}",
            (unsigned long long)c->samples, (unsigned long long)c->rejected,
            (unsigned long long)c->missed, (unsigned long long)c->sampler_cpu_ns,
            (unsigned long long)c->ticks, (unsigned long long)c->idle,
            (unsigned long long)c->failed_reads[0],
            (unsigned long long)c->failed_reads[1],
            (unsigned long long)c->failed_reads[2]);
}

/* The not-profiled records (stopped 0) or those of processes that stopped
 * writing (stopped 1), as "not_profiled" or "stopped_writing". */
static void records(FILE *o, const struct model *m, int stopped)
{
    fprintf(o, " \"%s\": [", stopped ? "stopped_writing" : "not_profiled");
    const char *sep = "\n";
    for (size_t i = 0; i < m->nunprofiled; i++) {
        const struct unprofiled *u = &m->unprofiled[i];
        if ((u->stopped_ns != 0) != stopped)
            continue;
        fprintf(o, "%s    {\"pid\": %ld, \"user\": ", sep, u->pid);
        if (u->user >= 0)
            fprintf(o, "%ld", u->user);
        else
            fputs("null", o);
        fputs(", \"command\": ", o);
        out_json_str(o, u->command);
        fputs(", \"reason\": ", o);
        out_json_str(o, u->reason);
        if (stopped) {
            fputs(", \"image\": ", o);
            out_json_str(o, u->image);
            fputs(", \"errno\": ", o);
            out_json_str(o, u->err_name);
            fprintf(o, ", \"at\": %.3f, \"lost_ticks\": ", (double)u->stopped_ns / 1e9);
            if (u->lost >= 0)
                fprintf(o, "%lld", u->lost);
            else
                fputs("null", o);
        }
        fputc('}', o);
        sep = ",\n";
    }
    fputs(*sep == ',' ? "\n ],\n" : "],\n", o);
}

/* Sampling on demand (pyprof(7)): the tree's windows, each from its
 * earliest start to its latest stop in any file (null: still open when
 * its files ended), and its marks, each once by its number; every file's
 * records sorted by kind and number, so that numbers a file makes up cost
 * nothing more. */
static int by_number(const void *a, const void *b)
{
    const struct rd_control *x = *(const struct rd_control *const *)a,
                            *y = *(const struct rd_control *const *)b;
    int kx = x->what == PP_CONTROL_REC_MARK, ky = y->what == PP_CONTROL_REC_MARK;
    uint32_t nx = kx ? x->seq : x->window, ny = ky ? y->seq : y->window;
    if (kx != ky)
        return kx - ky;
    return nx < ny ? -1 : nx > ny;
}

static void on_demand(FILE *o, const struct model *m)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        n += m->procs[i].f->ncontrols;
    if (!n)
        return;
    const struct rd_control **all = malloc(n * sizeof *all);
    if (!all)
        return;
    for (size_t i = 0; i < m->nprocs; i++)
        for (size_t c = 0; c < m->procs[i].f->ncontrols; c++)
            all[k++] = &m->procs[i].f->controls[c];
    qsort(all, n, sizeof *all, by_number);
    fputs(" \"windows\": [", o);
    size_t i = 0;
    for (int any = 0; i < n && all[i]->what != PP_CONTROL_REC_MARK; ) {
        uint32_t w = all[i]->window;
        uint64_t start = 0, stop = 0;
        for (; i < n && all[i]->what != PP_CONTROL_REC_MARK && all[i]->window == w; i++) {
            if (all[i]->what == PP_CONTROL_REC_START && (!start || all[i]->at_ns < start))
                start = all[i]->at_ns;
            if (all[i]->what == PP_CONTROL_REC_STOP && all[i]->at_ns > stop)
                stop = all[i]->at_ns;
        }
        if (!start)
            continue;
        fprintf(o, "%s{\"number\": %u, \"start\": %.6f, \"stop\": ", any++ ? ", " : "", w,
                (double)start / 1e9);
        if (stop)
            fprintf(o, "%.6f}", (double)stop / 1e9);
        else
            fputs("null}", o);
    }
    fputs("],\n \"marks\": [", o);
    for (int any = 0; i < n; i++) {
        if (i && all[i - 1]->what == PP_CONTROL_REC_MARK && all[i - 1]->seq == all[i]->seq)
            continue;
        fprintf(o, "%s{\"number\": %u, \"window\": %u, \"at\": %.6f, \"text\": ",
                any++ ? ", " : "", all[i]->seq, all[i]->window, (double)all[i]->at_ns / 1e9);
        out_json_str(o, all[i]->text);
        fputc('}', o);
    }
    fputs("],\n", o);
    free(all);
}

/* in[0..nin): samples of process i by interpreter (out_interps). */
static void process(FILE *o, const struct model *m, size_t i,
                    const struct out_interp *in, size_t nin)
{
    const struct m_proc *p = &m->procs[i];
    const struct rd_file *f = p->f;
    fprintf(o, "    {\"id\": ");
    out_json_str(o, p->id);
    fprintf(o, ", \"parent\": ");
    if (p->parent_id[0])
        out_json_str(o, p->parent_id);
    else
        fputs("null", o);
    fprintf(o, ", \"pid\": %lld, \"ppid\": %lld, \"started_by\": \"%s\", \"argv\": [",
            (long long)f->pid, (long long)f->ppid, model_started_by(f->started_by));
    for (size_t a = 0; a < f->argc; a++) {
        fputs(a ? ", " : "", o);
        out_json_str(o, f->argv[a]);
    }
    fprintf(o, "], \"title\": ");
    if (f->title)
        out_json_str(o, f->title);
    else
        fputs("null", o);
    fprintf(o, ", \"executable\": ");
    out_json_str(o, f->executable);
    fprintf(o, ", \"python\": ");
    out_json_str(o, f->python);
    fprintf(o, ", \"host\": ");
    out_json_str(o, f->hostname);
    fprintf(o, ", \"start\": %.6f, \"end\": ", (double)f->start_ns / 1e9);
    if (f->complete)
        fprintf(o, "%.6f", (double)f->end_ns / 1e9);
    else
        fputs("null", o);
    fprintf(o, ", \"duration\": %.6f", out_duration(p));
    if (window_set(m->opt.window))
        fprintf(o, ", \"window\": [%.6f, %.6f]", (double)p->win.lo / 1e9,
                p->win.hi == UINT64_MAX ? -1.0 : (double)p->win.hi / 1e9);
    fputs(", \"exit\": ", o);
    if (f->complete && f->end_how == PP_END_EXIT)
        fprintf(o, "{\"code\": %lld}", (long long)f->end_value);
    else if (f->complete && f->end_how == PP_END_SIGNAL)
        fprintf(o, "{\"signal\": %lld}", (long long)f->end_value);
    else if (f->complete && f->end_how == PP_END_EXEC)
        fputs("{\"exec\": true}", o);
    else
        fputs("null", o);
    if (f->segmented)
        fprintf(o, ", \"segments\": {\"files\": %zu, \"first\": %u, \"last\": %u, "
                   "\"image_start\": %.6f, \"goes_on\": %s}", f->nsegs, f->seg_first,
                f->seg_last, (double)f->image_start_ns / 1e9,
                f->complete && f->end_how == PP_END_SEGMENT ? "true" : "false");
    fprintf(o, ", \"complete\": %s, \"samples\": %llu, \"seconds\": %.6f, "
               "\"gc_samples\": %llu, "
               "\"exception_samples\": %llu, \"truncated\": %llu, "
               "\"cpu_extra_samples\": %llu, \"task_wait_samples\": %llu, "
               "\"interval_ns\": %llu, \"folded\": %u, \"counters\": ",
            f->complete ? "true" : "false", (unsigned long long)p->group.samples,
            (double)p->group.samples * (double)f->interval_ns / 1e9,
            (unsigned long long)p->in_gc, (unsigned long long)p->in_exc,
            (unsigned long long)p->truncated, (unsigned long long)f->cpu_extra,
            (unsigned long long)f->task_waits, (unsigned long long)f->interval_ns,
            p->folded);
    counters(o, &f->counters);
    fputs(", \"threads\": [", o);
    int first = 1;
    for (size_t t = 1; t < p->nthreads; t++) {
        if (!p->threads[t].name)
            continue;
        fprintf(o, "%s{\"tid\": %u, \"name\": ", first ? "" : ", ", p->threads[t].tid);
        out_json_str(o, p->threads[t].name);
        fputs(", \"os_name\": ", o);
        if (p->threads[t].os_name)
            out_json_str(o, p->threads[t].os_name);
        else
            fputs("null", o);
        fprintf(o, ", \"samples\": %llu}", (unsigned long long)p->threads[t].samples);
        first = 0;
    }
    fputs("], \"interpreters\": [", o);
    for (size_t k = 0; k < nin; k++)
        fprintf(o, "%s{\"id\": %u, \"samples\": %llu}", k ? ", " : "", in[k].id,
                (unsigned long long)in[k].samples);
    fputs("]}", o);
}

static void frame(FILE *o, const char *name, const char *file, long line, int first)
{
    fprintf(o, "%s{\"name\": ", first ? "" : ", ");
    out_json_str(o, name);
    fputs(", \"file\": ", o);
    out_json_str(o, file);
    fprintf(o, ", \"line\": %ld}", line);
}

int out_json(FILE *o, const struct model *m, const struct out_options *opt)
{
    size_t shown = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        shown += m->procs[i].folded_into < 0;
    fprintf(o, "{\"format\": \"pyprof-report\", \"version\": 1, \"mode\": \"%s\",\n",
            out_mode_name(m->opt.mode));
    double seconds = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        seconds += (double)m->procs[i].samples * (double)m->procs[i].f->interval_ns / 1e9;
    fprintf(o, " \"totals\": {\"processes\": %zu, \"python_processes\": %u, "
               "\"samples\": %llu, \"seconds\": %.6f, \"dropped\": %llu, \"missed\": %llu, "
               "\"sampler_cpu_ns\": %llu, \"samples_all_modes\": %llu, "
               "\"gc_samples\": %llu, \"exception_samples\": %llu, "
               "\"truncated\": %llu, \"max_depth\": %u},\n",
            m->nprocs, m->python_procs, (unsigned long long)m->samples, seconds,
            (unsigned long long)m->dropped, (unsigned long long)m->missed,
            (unsigned long long)m->sampler_cpu_ns,
            (unsigned long long)m->samples_all, (unsigned long long)m->in_gc,
            (unsigned long long)m->in_exc, (unsigned long long)m->truncated,
            PP_MAX_DEPTH);
    if (window_set(m->opt.window)) {
        char w[256];
        window_describe(m->opt.window, w, sizeof w);
        fputs(" \"window\": {\"text\": ", o);
        out_json_str(o, w);
        fprintf(o, ", \"processes_outside\": %zu},\n", m->outside);
    }
    on_demand(o, m);
    fputs(" \"processes\": [\n", o);
    size_t k = 0;
    struct out_interp *in;
    size_t nin = out_interps(m, &in), at = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        if (m->procs[i].folded_into >= 0)
            continue;
        while (at < nin && in[at].proc < i)
            at++;
        size_t end = at;
        while (end < nin && in[end].proc == i)
            end++;
        process(o, m, i, in + at, end - at);
        fputs(++k < shown ? ",\n" : "\n", o);
    }
    free(in);
    fputs(" ],\n \"functions\": [\n", o);
    uint32_t *order = malloc((m->nfuncs ? m->nfuncs : 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        order[i] = i;
    qsort_r(order, m->nfuncs, sizeof *order, out_cmp_self, (void *)m);
    size_t nf = 0;
    for (size_t i = 0; i < m->nfuncs; i++) {
        const struct m_func *f = &m->funcs[order[i]];
        if (!f->total)
            continue;
        fprintf(o, "%s    {\"name\": ", nf++ ? ",\n" : "");
        out_json_str(o, f->name);
        fputs(", \"file\": ", o);
        out_json_str(o, f->file);
        fprintf(o, ", \"line\": %u, \"self\": %llu, \"total\": %llu}", f->firstline,
                (unsigned long long)f->self, (unsigned long long)f->total);
    }
    free(order);
    fputs("\n ],\n \"stacks\": [\n", o);
    uint32_t *path = malloc((PP_MAX_DEPTH + 1) * sizeof *path);
    if (!path)
        return -1;
    for (size_t i = 0; i < m->nstacks; i++) {
        const struct m_stack *s = &m->stacks[i];
        const struct m_proc *p = &m->procs[s->proc];
        uint32_t tid = s->thread && s->thread < p->nthreads ? p->threads[s->thread].tid : 0;
        fprintf(o, "%s    {\"pid\": %lld, \"tid\": %u, \"interpreter\": %u, "
                   "\"count\": %llu, \"frames\": [",
                i ? ",\n" : "", (long long)p->f->pid, tid, model_stack_interp(m, s),
                (unsigned long long)s->count);
        char a[256], b[256];
        int g = out_group_frames(m, s, opt->group, a, b, sizeof a);
        if (g >= 1)
            frame(o, a, "", 0, 1);
        if (g >= 2)
            frame(o, b, "", 0, 0);
        size_t depth = model_path(m, s->leaf, path, PP_MAX_DEPTH + 1);
        for (size_t d = 0; d < depth; d++) {
            const struct m_frame *fr = &m->frames[path[d]];
            const struct m_func *fn = &m->funcs[fr->func];
            frame(o, fn->name, fn->file, fr->line, g == 0 && d == 0);
        }
        fputs("]}", o);
    }
    free(path);
    fputs("\n ],\n", o);
    records(o, m, 0);
    records(o, m, 1);
    fputs(" \"problems\": [\n", o);
    for (size_t i = 0; i < m->nproblems; i++) {
        fprintf(o, "%s    {\"file\": ", i ? ",\n" : "");
        out_json_str(o, m->problems[i].file);
        fputs(", \"error\": ", o);
        out_json_str(o, m->problems[i].error);
        fprintf(o, ", \"recovered\": %llu}", (unsigned long long)m->problems[i].recovered);
    }
    fputs("\n ]\n}\n", o);
    return 0;
}
