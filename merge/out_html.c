/*
 * out_html.c — the interactive flame graph page: one file holding the
 * page's own CSS and JavaScript (merge/html/, compiled in by
 * html_assets.c) and the model as JSON: functions, the trie of frames,
 * stacks with their counts in every mode, processes with their threads,
 * and the source lines the line view shows.  Everything written is per
 * function, trie node or distinct stack, never per sample, so the page
 * grows with distinct stacks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "pyprof/format.h"

/* html_assets.c, made from merge/html/ at build time. */
extern const char html_page[], html_css[], html_js[];

/* Source for the line view: the functions read, the lines kept around
 * their sampled lines, and the bytes embedded, all bounded. */
#define SRC_FUNCS_BY_SELF 30
#define SRC_FUNCS_BY_TOTAL 30
#define SRC_WHOLE_FUNC 40        /* shorter functions are shown whole     */
#define SRC_CONTEXT 3            /* else lines either side of a sampled one */
#define SRC_FILE_MAX (8 << 20)
#define SRC_LINE_MAX 400
#define SRC_TOTAL_MAX (4 << 20)

/* The data sits in a <script> element: '<' goes out as \u003c (valid in
 * JSON strings, where alone it can occur) so that nothing in a function
 * name or source line can end the element. */
static ssize_t lt_write(void *cookie, const char *buf, size_t n)
{
    FILE *o = cookie;
    size_t from = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '<') {
            fwrite(buf + from, 1, i - from, o);
            fputs("\\u003c", o);
            from = i + 1;
        }
    fwrite(buf + from, 1, n - from, o);
    return ferror(o) ? -1 : (ssize_t)n;
}

struct src_req { const char *file; int32_t line; };

static int cmp_req(const void *a, const void *b)
{
    const struct src_req *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

struct reqs { struct src_req *v; size_t n, cap; };

static int want(struct reqs *r, const char *file, long line)
{
    if (line < 1 || line > INT32_MAX)
        return 0;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        struct src_req *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (struct src_req){ file, (int32_t)line };
    return 0;
}

static int cmp_desc(const void *a, const void *b, void *keys)
{
    const uint64_t *k = keys;
    uint64_t x = k[*(const uint32_t *)a], y = k[*(const uint32_t *)b];
    return (x < y) - (x > y);
}

/* Marks the hottest functions (by self and by total) in pick[]. */
static int pick_funcs(const struct model *m, unsigned char *pick)
{
    uint32_t *order = malloc((m->nfuncs + 1) * sizeof *order);
    uint64_t *key = malloc((m->nfuncs + 1) * sizeof *key);
    if (!order || !key) {
        free(order);
        free(key);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            order[i] = i;
            key[i] = pass ? m->funcs[i].total : m->funcs[i].self;
        }
        qsort_r(order, m->nfuncs, sizeof *order, cmp_desc, key);
        size_t n = pass ? SRC_FUNCS_BY_TOTAL : SRC_FUNCS_BY_SELF;
        for (size_t i = 0; i < n && i < m->nfuncs && key[order[i]]; i++)
            pick[order[i]] = 1;
    }
    free(order);
    free(key);
    return 0;
}

/* Whether a function is shown whole: short, and not a module's code,
 * whose lines from 1 down to the sampled ones are mostly imports. */
static int whole(const struct m_func *f, int32_t lo, int32_t hi)
{
    return hi && (long)hi - lo < SRC_WHOLE_FUNC && strcmp(f->bare, "<module>") != 0;
}

/* The lines of the picked functions worth showing: short functions
 * whole, long ones around their sampled lines. */
static int collect_lines(const struct model *m, const unsigned char *pick,
                         struct reqs *r)
{
    int32_t *lo = malloc((m->nfuncs + 1) * sizeof *lo);
    int32_t *hi = malloc((m->nfuncs + 1) * sizeof *hi);
    int rc = lo && hi ? 0 : -1;
    for (size_t i = 0; !rc && i < m->nfuncs; i++) {
        lo[i] = (int32_t)(m->funcs[i].firstline ? m->funcs[i].firstline : INT32_MAX);
        hi[i] = 0;
    }
    for (size_t i = 0; !rc && i < m->nframes; i++) {
        const struct m_frame *f = &m->frames[i];
        if (!pick[f->func] || f->line < 1)
            continue;
        if (f->line < lo[f->func]) lo[f->func] = f->line;
        if (f->line > hi[f->func]) hi[f->func] = f->line;
    }
    for (size_t i = 0; !rc && i < m->nfuncs; i++)
        if (pick[i] && whole(&m->funcs[i], lo[i], hi[i]))
            for (long l = lo[i]; !rc && l <= hi[i]; l++)
                rc = want(r, m->funcs[i].file, l);
    for (size_t i = 0; !rc && i < m->nframes; i++) {
        const struct m_frame *f = &m->frames[i];
        uint32_t fn = f->func;
        if (!pick[fn] || f->line < 1 || !hi[fn] || whole(&m->funcs[fn], lo[fn], hi[fn]))
            continue;
        for (long l = (long)f->line - SRC_CONTEXT; !rc && l <= (long)f->line + SRC_CONTEXT; l++)
            rc = want(r, m->funcs[fn].file, l);
        if (!rc)
            rc = want(r, m->funcs[fn].file, m->funcs[fn].firstline);
    }
    free(lo);
    free(hi);
    return rc;
}

/* A file named by a profile is read only if it looks like Python source:
 * the names come from the input, which merge does not trust. */
static char *read_source(const char *path, size_t *len)
{
    size_t n = strlen(path);
    if (!(n > 3 && !strcmp(path + n - 3, ".py")) && !(n > 4 && !strcmp(path + n - 4, ".pyw")))
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SRC_FILE_MAX &&
        (buf = malloc((size_t)st.st_size + 1))) {
        *len = fread(buf, 1, (size_t)st.st_size, f);
        buf[*len] = 0;
    }
    fclose(f);
    return buf;
}

/* "src": [[file, [line, text, line, text, ...]], ...] */
static int write_source(FILE *j, const struct model *m)
{
    unsigned char *pick = calloc(m->nfuncs + 1, 1);
    struct reqs r = { 0 };
    int rc = !pick || pick_funcs(m, pick) || collect_lines(m, pick, &r) ? -1 : 0;
    free(pick);
    if (rc) {
        free(r.v);
        return -1;
    }
    if (r.n)                      /* r.v is NULL when no line was asked for */
        qsort(r.v, r.n, sizeof *r.v, cmp_req);
    fputs("\"src\":[", j);
    size_t total = 0, files = 0;
    char line[SRC_LINE_MAX + 1];
    for (size_t i = 0; i < r.n && total < SRC_TOTAL_MAX;) {
        size_t end = i;
        while (end < r.n && !strcmp(r.v[end].file, r.v[i].file))
            end++;
        size_t len = 0;
        char *text = read_source(r.v[i].file, &len);
        if (text) {
            fputs(files++ ? ",[" : "[", j);
            out_json_str(j, r.v[i].file);
            fputs(",[", j);
            const char *p = text, *stop = text + len;
            long at = 1, prev = 0;
            size_t k = 0;
            for (size_t q = i; q < end && p < stop && total < SRC_TOTAL_MAX; q++) {
                if (r.v[q].line == prev)
                    continue;
                prev = r.v[q].line;
                while (at < prev && p < stop) {
                    const char *nl = memchr(p, '\n', (size_t)(stop - p));
                    p = nl ? nl + 1 : stop;
                    at++;
                }
                if (p >= stop)
                    break;
                const char *nl = memchr(p, '\n', (size_t)(stop - p));
                size_t n = (size_t)((nl ? nl : stop) - p);
                if (n && p[n - 1] == '\r')
                    n--;
                if (n > SRC_LINE_MAX)
                    n = SRC_LINE_MAX;
                memcpy(line, p, n);
                line[n] = 0;
                /* NULs in a source file end the line early; harmless. */
                fprintf(j, "%s%ld,", k++ ? "," : "", prev);
                out_json_str(j, line);
                total += n + 8;
            }
            fputs("]]", j);
            free(text);
        }
        i = end;
    }
    fputs("]", j);
    free(r.v);
    return 0;
}

static void write_procs(FILE *j, const struct model *m)
{
    char buf[4096];
    fputs("\"procs\":[", j);
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *p = &m->procs[i];
        const struct rd_file *f = p->f;
        fprintf(j, "%s{\"pid\":%lld,\"parent\":%ld,\"folded_into\":%ld,\"folded\":%u,"
                   "\"by\":\"%s\",\"cmd\":",
                i ? ",\n" : "", (long long)f->pid, p->parent, p->folded_into, p->folded,
                model_started_by(f->started_by));
        model_argv_str(p, buf, sizeof buf);
        out_json_str(j, buf);
        fputs(",\"label\":", j);
        model_proc_label(p, buf, sizeof buf);
        out_json_str(j, buf);
        fputs(",\"python\":", j);
        out_json_str(j, f->python);
        /* seconds a sample stands for (its process's interval) */
        fprintf(j, ",\"iv\":%.9g", (double)f->interval_ns / 1e9);
        /* The host only where there are several (pids may repeat). */
        if (m->nhosts > 1) {
            fputs(",\"host\":", j);
            out_json_str(j, m->hosts[p->host]);
        }
        model_exit_str(p, buf, sizeof buf);
        fputs(",\"exit\":", j);
        out_json_str(j, buf);
        fprintf(j, ",\"duration\":%.3f,\"threads\":[", out_duration(p));
        for (size_t t = 0; t < p->nthreads; t++) {
            fputs(t ? "," : "", j);
            if (!p->threads[t].name) {
                fputs("0", j);
                continue;
            }
            char tn[600];
            fprintf(j, "[%u,", p->threads[t].tid);
            out_json_str(j, out_thread_name(&p->threads[t], tn, sizeof tn));
            fputs("]", j);
        }
        fputs("]}", j);
    }
    fputs("]", j);
}

/* A stack's counts in every mode; a model built without all_modes has
 * its chosen mode's only. */
static void stack_counts(const struct model *m, size_t i, uint64_t c[M_NMODES])
{
    if (m->stack_modes) {
        memcpy(c, &m->stack_modes[i * M_NMODES], M_NMODES * sizeof *c);
        return;
    }
    memset(c, 0, M_NMODES * sizeof *c);
    c[m->opt.mode] = m->stacks[i].count;
}

/* A JSON array of one count per mode. */
static void mode_counts(FILE *j, const uint64_t c[M_NMODES])
{
    for (int k = 0; k < M_NMODES; k++)
        fprintf(j, "%c%llu", k ? ',' : '[', (unsigned long long)c[k]);
    fputc(']', j);
}

/* The function of the outermost frame of trie node leaf's stack. */
static uint32_t root_func(const struct model *m, uint32_t leaf)
{
    uint32_t t = leaf;
    while (t && m->tnodes[t - 1].parent)
        t = m->tnodes[t - 1].parent;
    return t ? m->frames[m->tnodes[t - 1].frame].func : M_NO_FUNC;
}

/* One run: its functions, trie, stacks, and (for the run shown, not a
 * diff's base) processes and source lines. */
static int write_profile(FILE *j, const struct model *m, int full)
{
    uint64_t tot[M_NMODES] = { 0 }, cut[M_NMODES] = { 0 };
    long trunc = model_func_find(m, M_TRUNCATED, M_TRUNCATED_FILE, 0);
    for (size_t i = 0; i < m->nstacks; i++) {
        uint64_t c[M_NMODES];
        stack_counts(m, i, c);
        int is_cut = trunc >= 0 && root_func(m, m->stacks[i].leaf) == (uint32_t)trunc;
        for (int k = 0; k < M_NMODES; k++) {
            tot[k] += c[k];
            cut[k] += is_cut ? c[k] : 0;
        }
    }
    fputs("{\"samples\":", j);
    mode_counts(j, tot);
    fputs(",\"truncated\":", j);
    mode_counts(j, cut);
    fprintf(j, ",\"max_depth\":%u,\n\"funcs\":[", PP_MAX_DEPTH);
    for (size_t i = 0; i < m->nfuncs; i++) {
        fputs(i ? (i % 8 ? ",[" : ",\n[") : "[", j);
        out_json_str(j, m->funcs[i].name);
        fputc(',', j);
        out_json_str(j, m->funcs[i].file);
        fprintf(j, ",%u]", m->funcs[i].firstline);
    }
    /* node id i + 1: parent id, function, line */
    fputs("],\n\"nodes\":[", j);
    for (size_t i = 0; i < m->ntnodes; i++) {
        const struct m_frame *fr = &m->frames[m->tnodes[i].frame];
        fprintf(j, i % 16 ? ",%u,%u,%d" : i ? ",\n%u,%u,%d" : "%u,%u,%d",
                m->tnodes[i].parent, fr->func, fr->line);
    }
    fputs("],\n\"stacks\":[", j);
    size_t k = 0;
    for (size_t i = 0; i < m->nstacks; i++) {
        const struct m_stack *s = &m->stacks[i];
        uint64_t c[M_NMODES], any = 0;
        stack_counts(m, i, c);
        for (int q = 0; q < M_NMODES; q++)
            any |= c[q];
        if (!any)
            continue;
        fprintf(j, k % 8 ? ",%u,%u,%u" : k ? ",\n%u,%u,%u" : "%u,%u,%u",
                s->proc, s->thread, s->leaf);
        for (int q = 0; q < M_NMODES; q++)
            fprintf(j, ",%llu", (unsigned long long)c[q]);
        k++;
    }
    fputs("],\n", j);
    write_procs(j, m);
    if (full) {
        fputs(",\n", j);
        if (write_source(j, m))
            return -1;
    }
    fputs("}", j);
    return 0;
}

static int write_data(FILE *j, const struct model *base, const struct model *m)
{
    char title[1024] = "";
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].parent < 0) {
            model_proc_label(&m->procs[i], title, sizeof title);
            break;
        }
    fprintf(j, "{\"format\":\"pyprof-html\",\"version\":1,\"mode\":\"%s\",\"title\":",
            out_mode_name(m->opt.mode));
    out_json_str(j, title);
    fputs(",\n\"profile\":", j);
    if (write_profile(j, m, 1))
        return -1;
    if (base) {
        fputs(",\n\"base\":", j);
        if (write_profile(j, base, 0))
            return -1;
    }
    fputs("}", j);
    return 0;
}

/* The template with its @CSS@, @JS@ and @DATA@ lines filled in. */
static int page(FILE *o, const struct model *base, const struct model *m)
{
    const char *p = html_page;
    int rc = 0;
    while (*p) {
        const char *at = strchr(p, '@');
        if (!at) {
            fputs(p, o);
            break;
        }
        fwrite(p, 1, (size_t)(at - p), o);
        if (!strncmp(at, "@CSS@", 5)) {
            fputs(html_css, o);
            p = at + 5;
        } else if (!strncmp(at, "@JS@", 4)) {
            fputs(html_js, o);
            p = at + 4;
        } else if (!strncmp(at, "@DATA@", 6)) {
            cookie_io_functions_t io = { .write = lt_write };
            FILE *j = fopencookie(o, "w", io);
            if (!j)
                return -1;
            rc |= write_data(j, base, m);
            rc |= fclose(j);
            p = at + 6;
        } else {
            fputc('@', o);
            p = at + 1;
        }
    }
    return rc || ferror(o) ? -1 : 0;
}

int out_html(FILE *o, const struct model *m, const struct out_options *opt)
{
    (void)opt;
    return page(o, NULL, m);
}

int out_html_diff(FILE *o, const struct model *base, const struct model *m,
                  const struct out_options *opt)
{
    (void)opt;
    return page(o, base, m);
}
