/*
 * out_diff.c — `--diff BASE NEW` as text: the functions whose share of
 * their run's samples changed most.  Shares, not sample counts, are
 * compared, so runs of different lengths or rates compare; a function is
 * known across runs by qualified name and file (its first line moves when
 * the code above it is edited).  Ranked by the change of self share, the
 * time spent in the function's own code; the total share is shown beside.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

struct row {
    const char *name, *file;
    uint64_t self[2], total[2];     /* base, new */
    double dself, dtotal;
};

static int cmp_key(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->file, y->file);
}

static int cmp_change(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    double p = fabs(x->dself), q = fabs(y->dself);
    if (p != q)
        return p > q ? -1 : 1;
    p = fabs(x->dtotal);
    q = fabs(y->dtotal);
    if (p != q)
        return p > q ? -1 : 1;
    return cmp_key(a, b);
}

static double share(uint64_t n, uint64_t of)
{
    return of ? 100.0 * (double)n / (double)of : 0;
}

int out_diff_text(FILE *o, const struct model *base, const struct model *m,
                  const struct out_options *opt)
{
    const struct model *run[2] = { base, m };
    size_t n = base->nfuncs + m->nfuncs;
    struct row *r = calloc(n ? n : 1, sizeof *r);
    if (!r)
        return -1;
    size_t k = 0;
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < run[w]->nfuncs; i++) {
            const struct m_func *f = &run[w]->funcs[i];
            if (!f->total)
                continue;
            r[k].name = f->name;
            r[k].file = f->file;
            r[k].self[w] = f->self;
            r[k].total[w] = f->total;
            k++;
        }
    qsort(r, k, sizeof *r, cmp_key);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u && !cmp_key(&r[u - 1], &r[i])) {
            for (int w = 0; w < 2; w++) {
                r[u - 1].self[w] += r[i].self[w];
                r[u - 1].total[w] += r[i].total[w];
            }
        } else {
            r[u++] = r[i];
        }
    }
    for (size_t i = 0; i < u; i++) {
        r[i].dself = share(r[i].self[1], m->samples) - share(r[i].self[0], base->samples);
        r[i].dtotal = share(r[i].total[1], m->samples) - share(r[i].total[0], base->samples);
    }
    qsort(r, u, sizeof *r, cmp_change);

    fprintf(o, "pyprof diff (%s): base %llu samples in %zu processes, "
               "new %llu samples in %zu processes\n",
            out_mode_name(m->opt.mode), (unsigned long long)base->samples, base->nprocs,
            (unsigned long long)m->samples, m->nprocs);
    fprintf(o, "\nFunctions whose share changed most (share = samples / all samples of "
               "that run; + grew in NEW)\n");
    fprintf(o, "%9s %9s %8s  %9s %9s %8s  %s\n", "SELF BASE", "SELF NEW", "CHANGE",
            "TOTAL BASE", "TOTAL NEW", "CHANGE", "FUNCTION");
    for (size_t i = 0; i < u && i < opt->top; i++) {
        if (r[i].dself == 0 && r[i].dtotal == 0)
            break;
        fprintf(o, "%8.2f%% %8.2f%% %+7.2f%%  %9.2f%% %8.2f%% %+7.2f%%  ",
                share(r[i].self[0], base->samples), share(r[i].self[1], m->samples),
                r[i].dself, share(r[i].total[0], base->samples),
                share(r[i].total[1], m->samples), r[i].dtotal);
        out_escaped(o, r[i].name);
        fputs(" (", o);
        out_escaped(o, r[i].file);
        fputs(")\n", o);
    }
    free(r);
    return ferror(o) ? -1 : 0;
}
