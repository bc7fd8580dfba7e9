/*
 * out_collapsed.c — "frame;frame;... count" lines, outermost first, for
 * flamegraph.pl, speedscope, inferno.  Identical stacks (after grouping)
 * are summed into one line.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pyprof/format.h"

struct row { uint64_t group; uint32_t leaf, proc, thread; uint64_t count; };

/* A name as one field of a line: ';' would split the frame and a newline
 * the line, so ';' becomes ':' and control characters '?'. */
static void field(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c, o);
    }
}

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

int out_collapsed(FILE *o, const struct model *m, const struct out_options *opt)
{
    struct row *rows = malloc((m->nstacks ? m->nstacks : 1) * sizeof *rows);
    uint32_t *path = malloc((PP_MAX_DEPTH + 1) * sizeof *path);
    if (!rows || !path)
        return -1;
    for (size_t i = 0; i < m->nstacks; i++) {
        const struct m_stack *s = &m->stacks[i];
        uint64_t g = opt->group == GROUP_NONE ? 0 :
                     opt->group == GROUP_PROCESS ? (uint64_t)s->proc + 1 :
                     opt->group == GROUP_HOST ? (uint64_t)m->procs[s->proc].host + 1 :
                     opt->group == GROUP_INTERP ? (uint64_t)model_stack_interp(m, s) + 1 :
                     ((uint64_t)(s->proc + 1) << 32) | s->thread;
        rows[i] = (struct row){ g, s->leaf, s->proc, s->thread, s->count };
    }
    qsort(rows, m->nstacks, sizeof *rows, cmp_row);
    for (size_t i = 0; i < m->nstacks; ) {
        struct row r = rows[i++];
        while (i < m->nstacks && rows[i].group == r.group && rows[i].leaf == r.leaf)
            r.count += rows[i++].count;
        char a[256], b[256];
        struct m_stack s = { r.proc, r.thread, r.leaf, r.count };
        int n = out_group_frames(m, &s, opt->group, a, b, sizeof a);
        if (n >= 1) {
            field(o, a);
            fputc(';', o);
        }
        if (n >= 2) {
            field(o, b);
            fputc(';', o);
        }
        size_t depth = model_path(m, r.leaf, path, PP_MAX_DEPTH + 1);
        for (size_t k = 0; k < depth; k++) {
            const struct m_frame *fr = &m->frames[path[k]];
            const struct m_func *fn = &m->funcs[fr->func];
            if (k)
                fputc(';', o);
            field(o, fn->name);
            fputs(" (", o);
            field(o, fn->file);
            fprintf(o, ":%d)", fr->line);
        }
        fprintf(o, " %llu\n", (unsigned long long)r.count);
    }
    free(rows);
    free(path);
    return 0;
}
