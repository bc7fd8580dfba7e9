/*
 * out_text.c — the report a person reads first: totals with the sampler's
 * own cost, the process tree, the top functions overall and per process,
 * and what could not be read.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"

static void totals(FILE *o, const struct model *m)
{
    uint64_t first = UINT64_MAX, last = 0, ticks = 0, asked_ns = 0;
    double busy_s = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct rd_file *f = m->procs[i].f;
        if (f->start_ns < first)
            first = f->start_ns;
        uint64_t end = f->start_ns + (uint64_t)(out_duration(&m->procs[i]) * 1e9);
        if (end > last)
            last = end;
        ticks += f->counters.ticks;
        busy_s += out_duration(&m->procs[i]);
        if (!asked_ns)
            asked_ns = f->interval_ns;
    }
    double dur = last > first ? (double)(last - first) / 1e9 : 0;
    fprintf(o, "pyprof report, mode %s\n\nTotals\n", out_mode_name(m->opt.mode));
    fprintf(o, "  processes       %zu (%u Python)\n", m->nprocs, m->python_procs);
    fprintf(o, "  samples         %llu in %s mode (%llu in all)\n",
            (unsigned long long)m->samples, out_mode_name(m->opt.mode),
            (unsigned long long)m->samples_all);
    fprintf(o, "  duration        %.2f s (first start to last end)\n", dur);
    if (busy_s > 0 && asked_ns)
        fprintf(o, "  rate            %.1f ticks/s achieved, %.1f asked\n",
                (double)ticks / busy_s, 1e9 / (double)asked_ns);
    fprintf(o, "  rejected        %llu samples (stacks that changed while read)\n",
            (unsigned long long)m->dropped);
    fprintf(o, "  missed ticks    %llu\n", (unsigned long long)m->missed);
    fprintf(o, "  sampler CPU     %.1f ms (%.2f us per sample)\n",
            (double)m->sampler_cpu_ns / 1e6,
            m->samples_all ? (double)m->sampler_cpu_ns / 1e3 / (double)m->samples_all : 0);
}

static void tree_rows(FILE *o, const struct model *m, long parent, int depth)
{
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *p = &m->procs[i];
        if (p->parent != parent || p->folded_into >= 0)
            continue;
        const struct rd_file *f = p->f;
        char argv[200], ex[48], rate[32] = "-";
        model_argv_str(p, argv, sizeof argv);
        model_exit_str(p, ex, sizeof ex);
        double d = out_duration(p);
        if (d > 0)
            snprintf(rate, sizeof rate, "%.0f/%.0f", (double)f->counters.ticks / d,
                     f->interval_ns ? 1e9 / (double)f->interval_ns : 0);
        fprintf(o, "  %*s%-8lld %-6s %8llu %10s %5llu %5llu  %-24s %-8s %s%s",
                depth * 2, "", (long long)f->pid, model_started_by(f->started_by),
                (unsigned long long)p->samples, rate,
                (unsigned long long)f->counters.rejected,
                (unsigned long long)f->counters.missed, ex, f->python, argv,
                f->complete ? "" : "  [incomplete]");
        if (p->folded > 1)
            fprintf(o, "  [x%u identical processes folded]", p->folded);
        fputc('\n', o);
        if (depth < 64)
            tree_rows(o, m, (long)i, depth + 1);
    }
}

static void tree(FILE *o, const struct model *m)
{
    fprintf(o, "\nProcess tree (RATE = ticks/s achieved/asked; REJ rejected; MISS missed ticks)\n");
    fprintf(o, "  %-8s %-6s %8s %10s %5s %5s  %-24s %-8s %s\n", "PID", "HOW",
            "SAMPLES", "RATE", "REJ", "MISS", "EXIT", "PYTHON", "COMMAND");
    tree_rows(o, m, -1, 0);
}

struct fn_count { uint32_t func; uint64_t self, total; };

static int cmp_fn(const void *a, const void *b, void *by_total)
{
    const struct fn_count *x = a, *y = b;
    uint64_t xa = by_total ? x->total : x->self, ya = by_total ? y->total : y->self;
    if (xa != ya)
        return xa > ya ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

/* Self and total per function over the stacks of process proc (-1 = all). */
static struct fn_count *function_counts(const struct model *m, long proc,
                                        uint64_t *sum)
{
    struct fn_count *c = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *c);
    uint32_t *stamp = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *stamp);
    if (!c || !stamp) {
        free(c);
        free(stamp);
        return NULL;
    }
    *sum = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        c[i].func = i;
    for (size_t s = 0; s < m->nstacks; s++) {
        const struct m_stack *st = &m->stacks[s];
        if (proc >= 0 && st->proc != (uint32_t)proc)
            continue;
        *sum += st->count;
        c[m->frames[m->tnodes[st->leaf - 1].frame].func].self += st->count;
        for (uint32_t n = st->leaf; n; n = m->tnodes[n - 1].parent) {
            uint32_t fn = m->frames[m->tnodes[n - 1].frame].func;
            if (stamp[fn] != s + 1) {
                stamp[fn] = (uint32_t)(s + 1);
                c[fn].total += st->count;
            }
        }
    }
    free(stamp);
    return c;
}

static void top(FILE *o, const struct model *m, long proc, size_t n, int by_total,
                const char *title)
{
    uint64_t sum;
    struct fn_count *c = function_counts(m, proc, &sum);
    if (!c || !sum) {
        free(c);
        return;
    }
    qsort_r(c, m->nfuncs, sizeof *c, cmp_fn, by_total ? (void *)1 : NULL);
    fprintf(o, "\n%s\n  %8s %6s %8s %6s  %s\n", title, "SELF", "%", "TOTAL", "%",
            "FUNCTION (FILE:FIRST LINE)");
    for (size_t i = 0; i < n && i < m->nfuncs; i++) {
        const struct m_func *f = &m->funcs[c[i].func];
        if (!(by_total ? c[i].total : c[i].self))
            break;
        fprintf(o, "  %8llu %5.1f%% %8llu %5.1f%%  %s (%s:%u)\n",
                (unsigned long long)c[i].self, 100.0 * (double)c[i].self / (double)sum,
                (unsigned long long)c[i].total, 100.0 * (double)c[i].total / (double)sum,
                f->name, f->file, f->firstline);
    }
    free(c);
}

int out_text(FILE *o, const struct model *m, const struct out_options *opt)
{
    totals(o, m);
    tree(o, m);
    top(o, m, -1, opt->top, 0, "Top functions by self, all processes");
    top(o, m, -1, opt->top, 1, "Top functions by total, all processes");
    size_t per = opt->top < 5 ? opt->top : 5;
    for (size_t i = 0; i < m->nprocs && m->nprocs > 1; i++) {
        const struct m_proc *p = &m->procs[i];
        if (p->folded_into >= 0 || !p->samples)
            continue;
        char argv[160], title[256];
        model_argv_str(p, argv, sizeof argv);
        snprintf(title, sizeof title, "Process %lld (%s): top by self",
                 (long long)p->f->pid, argv);
        top(o, m, (long)i, per, 0, title);
    }
    if (m->nproblems) {
        fprintf(o, "\nProblems\n");
        for (size_t i = 0; i < m->nproblems; i++)
            fprintf(o, "  %s: %s (recovered %llu samples)\n", m->problems[i].file,
                    m->problems[i].error, (unsigned long long)m->problems[i].recovered);
    }
    return 0;
}
