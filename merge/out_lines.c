/*
 * out_lines.c — line_profiler-style text: for the functions with the most
 * self samples (--top of them), each source line with the samples that
 * had it executing (in the line itself or in what it called), of those the
 * samples in the line itself, and its share of the function's samples.
 * Counts are merged over every process.  Sources are read now, from the
 * paths the interpreters reported; a file that cannot be read leaves the
 * sampled lines with their numbers and counts and no text.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "pyprof/format.h"

/* Reading a function's source stops at its last sampled line; beyond
 * this many lines from the first, only sampled lines are shown. */
#define SPAN_MAX 400
/* Source text shown per line, in bytes. */
#define TEXT_MAX 160
/* Bytes read from one source at most: a profile (untrusted) may name any
 * regular file, a huge log or /proc/kcore, with a line number far into
 * it, and reading would then take as long as the file is big. */
#define SOURCE_MAX (64u << 20)

struct source {
    FILE *f;                     /* NULL: not readable                    */
    size_t left;                 /* bytes it may still be read            */
};

struct lines_ctx {
    const struct model *m;
    uint64_t *total, *self;      /* per frame                             */
    uint32_t *next;              /* per frame: next frame of its function */
    uint32_t *head;              /* per function: first frame + 1         */
};

static int cmp_line(const void *a, const void *b, void *mv)
{
    const struct model *m = mv;
    int32_t x = m->frames[*(const uint32_t *)a].line,
            y = m->frames[*(const uint32_t *)b].line;
    return (x > y) - (x < y);
}

/* Per frame: samples with it on the stack (once per stack) and innermost. */
static int count_frames(struct lines_ctx *c)
{
    const struct model *m = c->m;
    uint32_t *stamp = calloc(m->nframes ? m->nframes : 1, sizeof *stamp);
    uint32_t *path = malloc((PP_MAX_DEPTH + 1) * sizeof *path);
    if (!stamp || !path) {
        free(stamp);
        free(path);
        return -1;
    }
    for (size_t i = 0; i < m->nstacks; i++) {
        const struct m_stack *s = &m->stacks[i];
        size_t depth = model_path(m, s->leaf, path, PP_MAX_DEPTH + 1);
        for (size_t d = 0; d < depth; d++)
            if (stamp[path[d]] != i + 1) {
                stamp[path[d]] = (uint32_t)i + 1;
                c->total[path[d]] += s->count;
            }
        if (depth)
            c->self[path[depth - 1]] += s->count;
    }
    free(stamp);
    free(path);
    return 0;
}

/* Reads the next line of s into buf (at most TEXT_MAX bytes kept, the
 * rest of a longer line skipped, no newline); 0 at the end, or once
 * SOURCE_MAX bytes were read. */
static int next_line(struct source *s, char *buf, size_t cap)
{
    if (!s->f || s->left < 2)
        return 0;
    if (cap > s->left)
        cap = s->left;
    /* what fgets took, by position: a NUL byte ends buf's string early */
    off_t from = ftello(s->f);
    if (from < 0 || !fgets(buf, (int)cap, s->f))
        return 0;
    off_t to = ftello(s->f);
    size_t took = to > from ? (size_t)(to - from) : 0;
    s->left = took < s->left ? s->left - took : 0;
    /* the line ended where fgets stopped on its newline, whatever NUL
     * bytes came before it */
    int ended = took && took < cap && buf[took - 1] == '\n';
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n')
        buf[--n] = 0;
    if (!ended) {
        int ch;
        while (s->left && (ch = fgetc(s->f)) != EOF) {
            s->left--;
            if (ch == '\n')
                break;
        }
    }
    if (n && buf[n - 1] == '\r')
        buf[--n] = 0;
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            *p = ' ';
    return 1;
}

/* The file a function came from, if it is a regular file: a name from
 * a profile (untrusted) may be a FIFO or a device, which reading would
 * block on or never finish. */
static FILE *open_source(const char *path)
{
    struct stat st;
    /* not even opened otherwise: opening a device can act (a tape rewinds) */
    if (!path[0] || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f)
        close(fd);
    return f;
}

static void row(FILE *o, long line, uint64_t total, uint64_t self,
                uint64_t of, const char *text)
{
    if (line > 0)
        fprintf(o, "%7ld", line);
    else
        fprintf(o, "%7s", "?");
    if (total)
        fprintf(o, " %10llu %10llu %7.1f", (unsigned long long)total,
                (unsigned long long)self, of ? 100.0 * (double)total / (double)of : 0);
    else
        fprintf(o, " %10s %10s %7s", "", "", "");
    fprintf(o, "  %s\n", text);
}

static void function(FILE *o, struct lines_ctx *c, uint32_t fi, uint32_t *fr)
{
    const struct model *m = c->m;
    const struct m_func *fn = &m->funcs[fi];
    size_t n = 0;
    for (uint32_t k = c->head[fi]; k; k = c->next[k - 1])
        if (c->total[k - 1])
            fr[n++] = k - 1;
    qsort_r(fr, n, sizeof *fr, cmp_line, (void *)m);
    fputs("\nFunction: ", o);
    out_escaped(o, fn->name);
    fputs(" at ", o);
    out_escaped(o, fn->file);
    fprintf(o, ":%u\n", fn->firstline);
    fprintf(o, "Samples: %llu (%.1f%% of all), %llu in the function itself\n",
            (unsigned long long)fn->total,
            m->samples ? 100.0 * (double)fn->total / (double)m->samples : 0,
            (unsigned long long)fn->self);
    long lo = fn->firstline, hi = n ? m->frames[fr[n - 1]].line : 0;
    struct source src = { open_source(fn->file), SOURCE_MAX };
    if (!src.f) {
        fputs("(source not readable: ", o);
        out_escaped(o, fn->file);
        fputs(")\n", o);
    }
    fprintf(o, "\n%7s %10s %10s %7s  %s\n", "Line", "Samples", "Self", "% func",
            "Source");
    fputs("======================================================"
          "==========================\n", o);
    /* Frames of no known line (reported as 0 or less) first. */
    size_t i = 0;
    for (; i < n && m->frames[fr[i]].line <= 0; i++)
        row(o, 0, c->total[fr[i]], c->self[fr[i]], fn->total, "");
    int all = lo > 0 && hi >= lo && hi - lo <= SPAN_MAX;
    char buf[TEXT_MAX + 2];
    long at = 0;                           /* lines of src read so far */
    for (; i < n; i++) {
        long line = m->frames[fr[i]].line;
        if (all && at < lo - 1)
            while (at < lo - 1 && next_line(&src, buf, sizeof buf))
                at++;
        /* the unsampled lines before this one, when showing them all */
        while (all && at + 1 < line && next_line(&src, buf, sizeof buf))
            if (++at >= lo)
                row(o, at, 0, 0, 0, buf);
        const char *text = "";
        while (at < line && next_line(&src, buf, sizeof buf))
            if (++at == line)
                text = buf;
        row(o, line, c->total[fr[i]], c->self[fr[i]], fn->total, text);
    }
    if (src.f)
        fclose(src.f);
}

int out_lines(FILE *o, const struct model *m, const struct out_options *opt)
{
    struct lines_ctx c = { .m = m };
    size_t nf = m->nframes ? m->nframes : 1, nfn = m->nfuncs ? m->nfuncs : 1;
    c.total = calloc(nf, sizeof *c.total);
    c.self = calloc(nf, sizeof *c.self);
    c.next = calloc(nf, sizeof *c.next);
    c.head = calloc(nfn, sizeof *c.head);
    uint32_t *order = malloc(nfn * sizeof *order), *fr = malloc(nf * sizeof *fr);
    int r = -1;
    if (!c.total || !c.self || !c.next || !c.head || !order || !fr ||
        count_frames(&c) != 0)
        goto out;
    for (uint32_t i = (uint32_t)m->nframes; i-- > 0;) {
        c.next[i] = c.head[m->frames[i].func];
        c.head[m->frames[i].func] = i + 1;
    }
    for (uint32_t i = 0; i < m->nfuncs; i++)
        order[i] = i;
    qsort_r(order, m->nfuncs, sizeof *order, out_cmp_self, (void *)m);
    fprintf(o, "pyprof line report: %s mode, %llu samples in %zu processes\n",
            out_mode_name(m->opt.mode), (unsigned long long)m->samples, m->nprocs);
    fputs("Samples: samples with the line executing, in itself or in what it "
          "called;\nSelf: samples in the line itself; % func: Samples as a share of the "
          "function's samples.\n", o);
    for (size_t i = 0, shown = 0; i < m->nfuncs && shown < opt->top; i++)
        if (m->funcs[order[i]].self) {
            function(o, &c, order[i], fr);
            shown++;
        }
    r = 0;
out:
    free(c.total);
    free(c.self);
    free(c.next);
    free(c.head);
    free(order);
    free(fr);
    return r;
}
