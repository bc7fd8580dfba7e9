/*
 * out_text.c — the report a person reads first: totals with the sampler's
 * own cost, the processes that could not be profiled, the process tree,
 * the top functions overall and per process, and what could not be read.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pyprof/format.h"

/* Samples by interpreter, when any ran in a subinterpreter. */
static void interps(FILE *o, const struct model *m)
{
    struct out_interp *v;
    size_t n = out_interps(m, &v), nid = 0;
    struct { uint32_t id; uint64_t samples; } by[16];
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        any |= v[i].id != 0;
        size_t k = 0;
        while (k < nid && by[k].id != v[i].id)
            k++;
        if (k == nid && nid == 16)
            continue;
        if (k == nid)
            by[nid++] = (typeof(by[0])){ v[i].id, 0 };
        by[k].samples += v[i].samples;
    }
    free(v);
    if (!any)
        return;
    fputs("  interpreters   ", o);
    for (size_t k = 0; k < nid; k++) {
        if (by[k].id)
            fprintf(o, "%s %u: %llu", k ? "," : "", by[k].id,
                    (unsigned long long)by[k].samples);
        else
            fprintf(o, "%s main: %llu", k ? "," : "", (unsigned long long)by[k].samples);
    }
    fprintf(o, " samples%s\n", nid == 16 ? " (the first 16 seen)" : "");
}

/* The samples with flag `what` (in_gc, in_exc: pyprof(7), "Garbage
 * collection", "Exceptions"), and the processes that spent the largest
 * share of theirs so; count_at is where a process keeps its count. */
#define SHARE_PROCS 5
#define COUNT_OF(p, at) (*(const uint64_t *)((const char *)(p) + (at)))
static void flag_share(FILE *o, const struct model *m, const char *label,
                       uint64_t total, size_t count_at)
{
    if (!total)
        return;
    fprintf(o, "  %-16s%llu samples (%.1f %%)", label, (unsigned long long)total,
            m->samples ? 100.0 * (double)total / (double)m->samples : 0);
    size_t top[SHARE_PROCS], n = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *p = &m->procs[i];
        if (!COUNT_OF(p, count_at) || p->folded_into >= 0 || !p->group.samples)
            continue;
        double share = (double)COUNT_OF(p, count_at) / (double)p->group.samples;
        size_t k = n < SHARE_PROCS ? n++ : SHARE_PROCS;
        while (k > 0) {
            const struct m_proc *q = &m->procs[top[k - 1]];
            if ((double)COUNT_OF(q, count_at) / (double)q->group.samples >= share)
                break;
            if (k < SHARE_PROCS)
                top[k] = top[k - 1];
            k--;
        }
        if (k < SHARE_PROCS)
            top[k] = i;
    }
    fputs(n ? "; of each process's samples:" : "", o);
    for (size_t k = 0; k < n; k++) {
        const struct m_proc *p = &m->procs[top[k]];
        fprintf(o, "%s pid %lld %.1f %%", k ? "," : "", (long long)p->f->pid,
                100.0 * (double)COUNT_OF(p, count_at) / (double)p->group.samples);
    }
    fputs("\n", o);
}

/* A count of samples of process p as seconds: each sample stands for one
 * of its intervals (pyprof-merge(1), "Seconds"). */
static double secs(const struct model *m, size_t p, uint64_t count)
{
    return (double)count * (double)m->procs[p].f->interval_ns / 1e9;
}

/* The interval every process with samples shares, or 0 when they differ. */
static uint64_t common_interval(const struct model *m)
{
    uint64_t iv = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        if (!m->procs[i].samples)
            continue;
        if (iv && m->procs[i].f->interval_ns != iv)
            return 0;
        iv = m->procs[i].f->interval_ns;
    }
    return iv;
}

static void totals(FILE *o, const struct model *m)
{
    uint64_t first, ticks = 0, asked_ns = 0;
    double busy_s = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct rd_file *f = m->procs[i].f;
        ticks += f->counters.ticks;
        busy_s += out_duration(&m->procs[i]);
        if (!asked_ns)
            asked_ns = f->interval_ns;
    }
    double dur = (double)out_tree_span(m, &first) / 1e9;
    fprintf(o, "pyprof report, mode %s\n\nTotals\n", out_mode_name(m->opt.mode));
    fprintf(o, "  processes       %zu (%u Python)\n", m->nprocs, m->python_procs);
    if (m->nhosts > 1)
        fprintf(o, "  hosts           %zu (each one's times on its own clock)\n", m->nhosts);
    if (window_set(m->opt.window)) {
        char w[256];
        window_describe(m->opt.window, w, sizeof w);
        fprintf(o, "  window          %s; %zu process%s outside it left out (the "
                   "duration, rate, rejected and missed counts below are whole "
                   "processes')\n", w, m->outside, m->outside == 1 ? "" : "es");
    }
    double mode_s = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        mode_s += secs(m, i, m->procs[i].samples);
    fprintf(o, "  samples         %llu in %s mode (%llu in all), %.2f s of threads' "
               "time\n", (unsigned long long)m->samples, out_mode_name(m->opt.mode),
            (unsigned long long)m->samples_all, mode_s);
    fprintf(o, "  duration        %.2f s (first start to last end%s)\n", dur,
            m->nhosts > 1 ? ", on the longest host" : "");
    size_t segs = 0, cut = 0, older = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct rd_file *f = m->procs[i].f;
        if (!f->segmented)
            continue;
        segs += f->nsegs;
        cut++;
        older += f->seg_first > 0;
    }
    if (cut)
        fprintf(o, "  segments        %zu files of %zu process%s cut in time segments; "
                   "%zu begin%s after older segments were deleted (pyprof-run --keep, "
                   "--max-size)\n", segs, cut, cut == 1 ? "" : "es", older,
                older == 1 ? "s" : "");
    if (busy_s > 0 && asked_ns)
        fprintf(o, "  rate            %.1f ticks/s achieved, %.1f asked\n",
                (double)ticks / busy_s, 1e9 / (double)asked_ns);
    interps(o, m);
    fprintf(o, "  rejected        %llu samples (stacks that changed while read)\n",
            (unsigned long long)m->dropped);
    flag_share(o, m, "in GC", m->in_gc, offsetof(struct m_proc, in_gc));
    flag_share(o, m, "in exceptions", m->in_exc, offsetof(struct m_proc, in_exc));
    if (m->truncated)
        fprintf(o, "  truncated       %llu samples (stacks deeper than %u frames: the "
                   "outer frames are cut, the rest shown under %s)\n",
                (unsigned long long)m->truncated, PP_MAX_DEPTH, M_TRUNCATED);
    fprintf(o, "  missed ticks    %llu\n", (unsigned long long)m->missed);
    fprintf(o, "  sampler CPU     %.1f ms (%.2f us per sample)\n",
            (double)m->sampler_cpu_ns / 1e6,
            m->samples_all ? (double)m->sampler_cpu_ns / 1e3 / (double)m->samples_all : 0);
}

/* Processes of the tree that left a not-profiled record instead of a
 * profile (pyprof(5)): how many, and each one's reason. */
static void not_profiled(FILE *o, const struct model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nunprofiled; i++)
        n += !m->unprofiled[i].stopped_ns;
    if (!n)
        return;
    fprintf(o, "\nNot profiled\n  %zu process%s of the tree could not be profiled:\n",
            n, n == 1 ? "" : "es");
    for (size_t i = 0; i < m->nunprofiled; i++) {
        char what[1600];
        if (m->unprofiled[i].stopped_ns)
            continue;
        unprofiled_describe(&m->unprofiled[i], what, sizeof what);
        fprintf(o, "  %s\n", what);
    }
}

/* Files cut short (the reader's problems) and processes that stopped
 * writing their profile (a full disk: their records say why and when). */
static void problems(FILE *o, const struct model *m)
{
    size_t stopped = 0;
    for (size_t i = 0; i < m->nunprofiled; i++)
        stopped += m->unprofiled[i].stopped_ns != 0;
    if (!m->nproblems && !stopped)
        return;
    fprintf(o, "\nProblems\n");
    for (size_t i = 0; i < m->nunprofiled; i++) {
        char what[1600];
        if (!m->unprofiled[i].stopped_ns)
            continue;
        unprofiled_describe(&m->unprofiled[i], what, sizeof what);
        fprintf(o, "  %s\n", what);
    }
    for (size_t i = 0; i < m->nproblems; i++)
        fprintf(o, "  %s: %s (recovered %llu samples)\n", m->problems[i].file,
                m->problems[i].error, (unsigned long long)m->problems[i].recovered);
}

/* Members of group g are ix[first[g] .. first[g + 1]), in index order:
 * one counting sort, so that visiting every group is one pass over the
 * members instead of one pass over all of them per group. */
struct groups { size_t *first; uint32_t *ix; };

typedef size_t (*group_fn)(const struct model *m, size_t i);

static int group(struct groups *g, const struct model *m, size_t n, size_t ngroups,
                 group_fn key)
{
    /* Counted two places up, so that after the prefix sums first[k + 1]
     * is where group k starts, and after placing, where group k + 1 does. */
    g->first = calloc(ngroups + 2, sizeof *g->first);
    g->ix = malloc((n ? n : 1) * sizeof *g->ix);
    if (!g->first || !g->ix)
        return -1;
    for (size_t i = 0; i < n; i++)
        g->first[key(m, i) + 2]++;
    for (size_t k = 2; k < ngroups + 2; k++)
        g->first[k] += g->first[k - 1];
    for (size_t i = 0; i < n; i++)
        g->ix[g->first[key(m, i) + 1]++] = (uint32_t)i;
    return 0;
}

static void groups_free(struct groups *g)
{
    free(g->first);
    free(g->ix);
}

/* Group 0 holds the roots, group k + 1 the children of process k. */
static size_t parent_group(const struct model *m, size_t i)
{
    return (size_t)(m->procs[i].parent + 1);
}

static size_t stack_proc(const struct model *m, size_t i)
{
    return m->stacks[i].proc;
}

#define TREE_DEPTH 64     /* deeper descendants are listed after the tree */

/* Rejected samples above this share of a process's ticks bias its profile
 * toward stable code: said on its line, with where the threads were last
 * seen before their samples were dropped. */
#define REJECT_WARN_PCT 2
#define REJECT_LEAVES   3

static void reject_note(FILE *o, const struct model *m, const struct m_proc *p)
{
    const struct rd_file *f = p->f;
    uint64_t rej = f->counters.rejected, ticks = f->counters.ticks;
    if (!ticks || rej * 100 <= ticks * REJECT_WARN_PCT)
        return;
    fprintf(o, "  [rejected %.1f %% of ticks", 100.0 * (double)rej / (double)ticks);
    uint64_t sum = 0;
    for (size_t k = 0; k < p->nrejects; k++)
        sum += p->rejects[k].count;
    for (size_t k = 0; k < p->nrejects && k < REJECT_LEAVES && sum; k++) {
        uint32_t fn = p->rejects[k].func;
        fputs(k ? ", " : "; last seen in: ", o);
        out_escaped(o, fn == M_NO_FUNC ? "(unknown)" : m->funcs[fn].name);
        fprintf(o, " %.0f %%", 100.0 * (double)p->rejects[k].count / (double)sum);
    }
    const uint64_t *fr = f->counters.failed_reads;
    if (fr[0] + fr[1] + fr[2])
        fprintf(o, "; failed reads: %llu torn, %llu too slow, %llu other",
                (unsigned long long)fr[0], (unsigned long long)fr[1],
                (unsigned long long)fr[2]);
    fputc(']', o);
}

static void tree_row(FILE *o, const struct model *m, size_t i, int depth)
{
    const struct m_proc *p = &m->procs[i];
    const struct rd_file *f = p->f;
    char argv[200], ex[48], rate[32] = "-";
    model_proc_label(p, argv, sizeof argv);
    model_exit_str(p, ex, sizeof ex);
    double d = out_duration(p);
    if (d > 0)
        snprintf(rate, sizeof rate, "%.0f/%.0f", (double)f->counters.ticks / d,
                 f->interval_ns ? 1e9 / (double)f->interval_ns : 0);
    /* The host beside the pid when there are several: pids of different
     * hosts may be the same. */
    if (m->nhosts > 1)
        fprintf(o, "  %-14.14s", m->hosts[p->host]);
    fprintf(o, "  %*s%-8lld %-6s %8llu %9.2f %10s %5llu %5llu %9.1f  %-25s %-8s %s%s",
            depth * 2, "", (long long)f->pid, model_started_by(f->started_by),
            (unsigned long long)p->group.samples, secs(m, i, p->group.samples), rate,
            (unsigned long long)p->group.rejected,
            (unsigned long long)p->group.missed,
            (double)p->group.sampler_cpu_ns / 1e6, ex, f->python, argv,
            f->complete ? "" : "  [incomplete]");
    if (p->folded > 1)
        fprintf(o, "  [x%u identical processes folded]", p->folded);
    reject_note(o, m, p);
    fputc('\n', o);
}

static void tree_rows(FILE *o, const struct model *m, const struct groups *kids,
                      long parent, int depth, char *shown)
{
    size_t g = (size_t)(parent + 1);
    for (size_t k = kids->first[g]; k < kids->first[g + 1]; k++) {
        size_t i = kids->ix[k];
        if (m->procs[i].folded_into >= 0)
            continue;
        tree_row(o, m, i, depth);
        shown[i] = 1;
        if (depth < TREE_DEPTH)
            tree_rows(o, m, kids, (long)i, depth + 1, shown);
    }
}

static int tree(FILE *o, const struct model *m)
{
    fprintf(o, "\nProcess tree (SECONDS = samples x the process's interval; RATE = "
               "ticks/s achieved/asked; REJ rejected; MISS missed ticks; SAMPLER = the "
               "sampler thread's CPU time, ms)\n");
    if (m->nhosts > 1)
        fprintf(o, "  %-14s", "HOST");
    fprintf(o, "  %-8s %-6s %8s %9s %10s %5s %5s %9s  %-25s %-8s %s\n", "PID", "HOW",
            "SAMPLES", "SECONDS", "RATE", "REJ", "MISS", "SAMPLER", "EXIT", "PYTHON",
            "COMMAND");
    struct groups kids;
    char *shown = calloc(m->nprocs ? m->nprocs : 1, 1);
    int r = shown ? group(&kids, m, m->nprocs, m->nprocs + 1, parent_group) : -1;
    if (r == 0) {
        tree_rows(o, m, &kids, -1, 0, shown);
        int header = 0;
        for (size_t i = 0; i < m->nprocs; i++) {
            if (shown[i] || m->procs[i].folded_into >= 0)
                continue;
            if (!header++)
                fprintf(o, "  (more than %d levels below a root:)\n", TREE_DEPTH);
            tree_row(o, m, i, 0);
        }
        groups_free(&kids);
    }
    free(shown);
    return r;
}

struct fn_count { uint32_t func; uint64_t self, total; double self_s, total_s; };

static int cmp_fn(const void *a, const void *b, void *by_total)
{
    const struct fn_count *x = a, *y = b;
    uint64_t xa = by_total ? x->total : x->self, ya = by_total ? y->total : y->self;
    if (xa != ya)
        return xa > ya ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

/* Self and total per function over a set of stacks.  The arrays span
 * every function but only the functions the set touched are listed and
 * then cleared, so that a tally per process costs that process's stacks,
 * not the whole model. */
struct tally {
    struct fn_count *c;          /* by function; zero outside a tally     */
    uint64_t *stamp;             /* the last visit counted in c[].total   */
    uint64_t visits;             /* stacks visited, over every tally      */
    uint32_t *touched;           /* functions with a total, as first met  */
    size_t ntouched;
    struct fn_count *rows;       /* the touched counts, to order          */
    uint64_t sum;
};

static int tally_init(struct tally *t, const struct model *m)
{
    size_t n = m->nfuncs ? m->nfuncs : 1;
    t->c = calloc(n, sizeof *t->c);
    t->stamp = calloc(n, sizeof *t->stamp);
    t->touched = malloc(n * sizeof *t->touched);
    t->rows = malloc(n * sizeof *t->rows);
    t->ntouched = 0;
    t->visits = 0;
    if (!t->c || !t->stamp || !t->touched || !t->rows)
        return -1;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        t->c[i].func = i;
    return 0;
}

static void tally_free(struct tally *t)
{
    free(t->c);
    free(t->stamp);
    free(t->touched);
    free(t->rows);
}

/* Stacks ix[0 .. n).  A stamp is a visit number, unique across tallies,
 * so stamps never need clearing. */
static void tally(struct tally *t, const struct model *m, const uint32_t *ix,
                  size_t n)
{
    for (size_t i = 0; i < t->ntouched; i++) {
        struct fn_count *c = &t->c[t->touched[i]];
        c->self = c->total = 0;
        c->self_s = c->total_s = 0;
    }
    t->ntouched = 0;
    t->sum = 0;
    for (size_t k = 0; k < n; k++) {
        const struct m_stack *st = &m->stacks[ix[k]];
        uint64_t visit = ++t->visits;
        double sec = secs(m, st->proc, st->count);
        t->sum += st->count;
        struct fn_count *leaf = &t->c[m->frames[m->tnodes[st->leaf - 1].frame].func];
        leaf->self += st->count;
        leaf->self_s += sec;
        for (uint32_t nd = st->leaf; nd; nd = m->tnodes[nd - 1].parent) {
            uint32_t fn = m->frames[m->tnodes[nd - 1].frame].func;
            if (t->stamp[fn] != visit) {
                t->stamp[fn] = visit;
                if (!t->c[fn].total)
                    t->touched[t->ntouched++] = fn;
                t->c[fn].total += st->count;
                t->c[fn].total_s += sec;
            }
        }
    }
    for (size_t i = 0; i < t->ntouched; i++)
        t->rows[i] = t->c[t->touched[i]];
}

/* Puts the first k of rows[0 .. n) in cmp_fn's order: by selection when
 * k is as small as a process's table, by sorting otherwise. */
static void order(struct fn_count *rows, size_t n, size_t k, int by_total)
{
    void *arg = by_total ? (void *)1 : NULL;
    if (k > 8) {
        qsort_r(rows, n, sizeof *rows, cmp_fn, arg);
        return;
    }
    for (size_t i = 0; i < k && i < n; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (cmp_fn(&rows[j], &rows[best], arg) < 0)
                best = j;
        struct fn_count r = rows[i];
        rows[i] = rows[best];
        rows[best] = r;
    }
}

/* rows[0 .. n) are the functions counted in stacks summing to sum.
 * cmp_fn is a total order (ties go to the lower function index), so
 * ordering only those lists the same rows as sorting every function:
 * the others count zero and a table stops at the first zero. */
static void top(FILE *o, const struct model *m, struct fn_count *rows, size_t n,
                uint64_t sum, size_t k, int by_total, const char *title)
{
    if (!sum)
        return;
    order(rows, n, k, by_total);
    fprintf(o, "\n%s\n  %8s %6s %9s %8s %6s %9s  %s\n", title, "SELF", "%", "SELF s",
            "TOTAL", "%", "TOTAL s", "FUNCTION (FILE:FIRST LINE)");
    for (size_t i = 0; i < k && i < n; i++) {
        const struct fn_count *c = &rows[i];
        const struct m_func *f = &m->funcs[c->func];
        if (!(by_total ? c->total : c->self))
            break;
        fprintf(o, "  %8llu %5.1f%% %9.3f %8llu %5.1f%% %9.3f  ",
                (unsigned long long)c->self, 100.0 * (double)c->self / (double)sum,
                c->self_s, (unsigned long long)c->total,
                100.0 * (double)c->total / (double)sum, c->total_s);
        out_escaped(o, f->name);
        fputs(" (", o);
        out_escaped(o, f->file);
        fprintf(o, ":%u)\n", f->firstline);
    }
}

/* Over every stack, the model has counted already (count_functions). */
static void top_all(FILE *o, const struct model *m, struct tally *t, size_t k)
{
    size_t n = 0;
    uint64_t sum = 0, iv = common_interval(m);
    if (!iv && m->nstacks) {
        /* processes at different rates: seconds stack by stack */
        uint32_t *all = malloc(m->nstacks * sizeof *all);
        if (!all)
            return;
        for (size_t i = 0; i < m->nstacks; i++)
            all[i] = (uint32_t)i;
        tally(t, m, all, m->nstacks);
        free(all);
        n = t->ntouched;
        sum = t->sum;
    }
    for (uint32_t i = 0; iv && i < m->nfuncs; i++) {
        if (!m->funcs[i].total)
            continue;
        t->rows[n++] = (struct fn_count){ i, m->funcs[i].self, m->funcs[i].total,
                                          (double)m->funcs[i].self * (double)iv / 1e9,
                                          (double)m->funcs[i].total * (double)iv / 1e9 };
        sum += m->funcs[i].self;
    }
    top(o, m, t->rows, n, sum, k, 0, "Top functions by self, all processes");
    top(o, m, t->rows, n, sum, k, 1, "Top functions by total, all processes");
}

static void per_process(FILE *o, const struct model *m, struct tally *t,
                        const struct groups *stacks, size_t per)
{
    for (size_t i = 0; i < m->nprocs && m->nprocs > 1; i++) {
        const struct m_proc *p = &m->procs[i];
        if (p->folded_into >= 0 || !p->samples)
            continue;
        char argv[160], title[256];
        model_proc_label(p, argv, sizeof argv);
        snprintf(title, sizeof title, "Process %lld (%s): top by self",
                 (long long)p->f->pid, argv);
        tally(t, m, stacks->ix + stacks->first[i], stacks->first[i + 1] - stacks->first[i]);
        top(o, m, t->rows, t->ntouched, t->sum, per, 0, title);
    }
}

/* The threads with the most samples in the mode, by the names the
 * program gave them (pyprof(7), "Thread names"). */
#define THREAD_ROWS 20
struct thread_row { const struct m_proc *p; const struct m_thread *t; };

static int cmp_thread_row(const void *a, const void *b)
{
    const struct thread_row *x = a, *y = b;
    return x->t->samples < y->t->samples ? 1 : x->t->samples > y->t->samples ? -1 : 0;
}

static void threads_section(FILE *o, const struct model *m)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        for (size_t t = 1; t < m->procs[i].nthreads; t++)
            n += m->procs[i].folded_into < 0 && m->procs[i].threads[t].samples > 0;
    struct thread_row *rows = n ? malloc(n * sizeof *rows) : NULL;
    if (!rows)
        return;
    for (size_t i = 0; i < m->nprocs; i++)
        for (size_t t = 1; t < m->procs[i].nthreads; t++)
            if (m->procs[i].folded_into < 0 && m->procs[i].threads[t].samples > 0)
                rows[k++] = (struct thread_row){ &m->procs[i], &m->procs[i].threads[t] };
    qsort(rows, n, sizeof *rows, cmp_thread_row);
    fprintf(o, "\nThreads by samples (NAME: the program's, [OS: ...] where the OS's differs)\n"
               "  PID      TID        SAMPLES   SECONDS  NAME\n");
    for (size_t i = 0; i < n && i < THREAD_ROWS; i++) {
        char tn[600];
        fprintf(o, "  %-8lld %-10u %7llu %9.2f  ", (long long)rows[i].p->f->pid,
                rows[i].t->tid, (unsigned long long)rows[i].t->samples,
                (double)rows[i].t->samples * (double)rows[i].p->f->interval_ns / 1e9);
        out_escaped(o, out_thread_name(rows[i].t, tn, sizeof tn));
        fputc('\n', o);
    }
    if (n > THREAD_ROWS)
        fprintf(o, "  (%zu more threads)\n", n - THREAD_ROWS);
    free(rows);
}

int out_text(FILE *o, const struct model *m, const struct out_options *opt)
{
    struct tally t;
    struct groups stacks = { 0 };
    int r = tally_init(&t, m);
    if (r == 0)
        r = group(&stacks, m, m->nstacks, m->nprocs, stack_proc);
    totals(o, m);
    not_profiled(o, m);
    if (r == 0)
        r = tree(o, m);
    if (r == 0)
        threads_section(o, m);
    if (r == 0) {
        top_all(o, m, &t, opt->top);
        per_process(o, m, &t, &stacks, opt->top < 5 ? opt->top : 5);
    }
    tally_free(&t);
    groups_free(&stacks);
    problems(o, m);
    return r;
}
