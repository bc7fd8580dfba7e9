/*
 * out_pprof.c — a gzipped profile.proto, as `go tool pprof` and the
 * services that take pprof files read it.  One sample per stack of the
 * model with three values (wall, cpu and gil time: samples times the
 * process's interval) and labels for the process and thread; one location
 * per frame (function and line), one function per model function.
 *
 * The protobuf encoding is written here (a few field kinds: varints and
 * length-delimited bytes); each top-level field goes to zlib's gzip stream
 * as soon as it is encoded, so memory holds one message at a time beside
 * the string table.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "index.h"
#include "output.h"
#include "pyprof/format.h"

/* ------------------------------------------------------------ encoding */

struct pb { uint8_t *b; size_t n, cap; int oom; };

static void pb_raw(struct pb *p, const void *d, size_t n)
{
    if (p->n + n > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        while (cap < p->n + n)
            cap *= 2;
        uint8_t *b = realloc(p->b, cap);
        if (!b) {
            p->oom = 1;
            return;
        }
        p->b = b;
        p->cap = cap;
    }
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        b[n++] |= v ? 0x80 : 0;
    } while (v);
    pb_raw(p, b, n);
}

/* Field numbers with wire types 0 (varint) and 2 (length-delimited). */
static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
    pb_varint(p, (uint64_t)field << 3);
    pb_varint(p, v);
}

static void pb_bytes(struct pb *p, unsigned field, const void *d, size_t n)
{
    pb_varint(p, (uint64_t)field << 3 | 2);
    pb_varint(p, n);
    pb_raw(p, d, n);
}

/* A nested message: what was encoded into sub, then sub is emptied. */
static void pb_msg(struct pb *p, unsigned field, struct pb *sub)
{
    pb_bytes(p, field, sub->b, sub->n);
    p->oom |= sub->oom;
    sub->n = 0;
}

/* ------------------------------------------------------------ gzip out */

struct gz { z_stream z; FILE *o; int err; uint8_t out[1 << 16]; };

static void gz_put(struct gz *g, const uint8_t *d, size_t n, int flush)
{
    g->z.next_in = (uint8_t *)d;
    g->z.avail_in = (uInt)n;
    do {
        g->z.next_out = g->out;
        g->z.avail_out = sizeof g->out;
        int r = deflate(&g->z, flush);
        if (r == Z_STREAM_ERROR)
            g->err = 1;
        size_t have = sizeof g->out - g->z.avail_out;
        if (have && fwrite(g->out, 1, have, g->o) != have)
            g->err = 1;
    } while (g->z.avail_out == 0 && !g->err);
}

/* Sends p's bytes (one or more whole top-level fields) and empties it. */
static void gz_field(struct gz *g, struct pb *p)
{
    if (p->oom)
        g->err = 1;
    else if (p->n)
        gz_put(g, p->b, p->n, Z_NO_FLUSH);
    p->n = 0;
}

/* ------------------------------------------------------------ strings */

struct strtab {
    char **s; size_t n, cap;          /* index -> string (owned)          */
    struct index ix;
    int oom;
};

static uint64_t str_rehash(const void *ctx, uint32_t i)
{
    const struct strtab *t = ctx;
    return index_hash_str(INDEX_SEED, t->s[i]);
}
static int str_eq(const void *ctx, uint32_t i, const void *key)
{
    const struct strtab *t = ctx;
    return !strcmp(t->s[i], key);
}

static uint64_t intern(struct strtab *t, const char *s)
{
    if (index_reserve(&t->ix, t->n, str_rehash, t) != 0) {
        t->oom = 1;
        return 0;
    }
    uint32_t *slot = index_slot(&t->ix, index_hash_str(INDEX_SEED, s), str_eq, t, s);
    if (*slot)
        return *slot - 1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        char **n = realloc(t->s, cap * sizeof *n);
        if (!n) {
            t->oom = 1;
            return 0;
        }
        t->s = n;
        t->cap = cap;
    }
    if (!(t->s[t->n] = strdup(s))) {
        t->oom = 1;
        return 0;
    }
    *slot = (uint32_t)++t->n;
    return t->n - 1;
}

static void strtab_free(struct strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    index_free(&t->ix);
}

/* ------------------------------------------------------------ profile */

/* profile.proto's field numbers. */
enum {
    P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
    P_STRING_TABLE = 6, P_TIME_NANOS = 9, P_DURATION_NANOS = 10,
    P_PERIOD_TYPE = 11, P_PERIOD = 12, P_DEFAULT_SAMPLE_TYPE = 14,
    VT_TYPE = 1, VT_UNIT = 2,
    S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
    L_KEY = 1, L_STR = 2, L_NUM = 3,
    M_ID = 1, M_FILENAME = 5, M_HAS_FUNCTIONS = 7, M_HAS_FILENAMES = 8,
    M_HAS_LINE_NUMBERS = 9,
    LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_LINE = 4, LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4, F_START_LINE = 5,
};

static void value_type(struct pb *p, unsigned field, struct pb *sub,
                       struct strtab *t, const char *type, const char *unit)
{
    pb_uint(sub, VT_TYPE, intern(t, type));
    pb_uint(sub, VT_UNIT, intern(t, unit));
    pb_msg(p, field, sub);
}

static void label(struct pb *p, struct pb *sub, uint64_t key, int is_str,
                  uint64_t v)
{
    pb_uint(sub, L_KEY, key);
    pb_uint(sub, is_str ? L_STR : L_NUM, v);
    pb_msg(p, S_LABEL, sub);
}

/* The per-process strings every sample of the process carries. */
struct proc_labels { uint64_t command, process, host; };

static int samples(struct gz *g, struct pb *p, const struct model *m,
                   struct strtab *t, const struct proc_labels *pl)
{
    struct pb sub = { 0 }, packed = { 0 };
    uint32_t *path = malloc((PP_MAX_DEPTH + 1) * sizeof *path);
    if (!path)
        return -1;
    uint64_t k_pid = intern(t, "pid"), k_tid = intern(t, "tid"),
             k_thread = intern(t, "thread"), k_cmd = intern(t, "command"),
             k_proc = intern(t, "process"),
             k_host = intern(t, "host");
    for (size_t i = 0; i < m->nstacks && !g->err; i++) {
        const struct m_stack *s = &m->stacks[i];
        const uint64_t *modes = &m->stack_modes[i * M_NMODES];
        if (!modes[MODE_WALL] && !modes[MODE_CPU] && !modes[MODE_GIL])
            continue;
        size_t depth = model_path(m, s->leaf, path, PP_MAX_DEPTH + 1);
        for (size_t d = depth; d-- > 0;)            /* the leaf first */
            pb_varint(&packed, (uint64_t)path[d] + 1);
        pb_msg(&sub, S_LOCATION_ID, &packed);
        for (int k = 0; k < M_NMODES; k++)
            pb_varint(&packed, (uint64_t)out_stack_ns(m, s, modes[k]));
        pb_msg(&sub, S_VALUE, &packed);
        const struct m_proc *pr = &m->procs[s->proc];
        struct pb lab = { 0 };
        label(&sub, &lab, k_pid, 0, (uint64_t)pr->f->pid);
        if (s->thread && s->thread < pr->nthreads && pr->threads[s->thread].name) {
            label(&sub, &lab, k_tid, 0, pr->threads[s->thread].tid);
            char tn[600];
            label(&sub, &lab, k_thread, 1,
                  intern(t, out_thread_name(&pr->threads[s->thread], tn, sizeof tn)));
        }
        label(&sub, &lab, k_cmd, 1, pl[s->proc].command);
        label(&sub, &lab, k_proc, 1, pl[s->proc].process);
        /* Pids of different hosts may be the same. */
        if (m->nhosts > 1)
            label(&sub, &lab, k_host, 1, pl[s->proc].host);
        sub.oom |= lab.oom;
        free(lab.b);
        pb_msg(p, P_SAMPLE, &sub);
        gz_field(g, p);
    }
    free(path);
    int oom = sub.oom | packed.oom;
    free(sub.b);
    free(packed.b);
    return oom ? -1 : 0;
}

static void locations(struct gz *g, struct pb *p, const struct model *m)
{
    struct pb sub = { 0 }, line = { 0 };
    for (size_t i = 0; i < m->nframes && !g->err; i++) {
        pb_uint(&sub, LOC_ID, i + 1);
        pb_uint(&sub, LOC_MAPPING_ID, 1);
        pb_uint(&line, LINE_FUNCTION_ID, (uint64_t)m->frames[i].func + 1);
        pb_uint(&line, LINE_LINE, (uint64_t)(int64_t)m->frames[i].line);
        pb_msg(&sub, LOC_LINE, &line);
        pb_msg(p, P_LOCATION, &sub);
        gz_field(g, p);
    }
    g->err |= sub.oom | line.oom;
    free(sub.b);
    free(line.b);
}

static void functions(struct gz *g, struct pb *p, const struct model *m,
                      struct strtab *t)
{
    struct pb sub = { 0 };
    for (size_t i = 0; i < m->nfuncs && !g->err; i++) {
        const struct m_func *f = &m->funcs[i];
        pb_uint(&sub, F_ID, i + 1);
        pb_uint(&sub, F_NAME, intern(t, f->name));
        /* pprof "demangles" a name equal to its system name, which
         * strips <module> and <lambda> to nothing: left out then. */
        if (strcmp(f->bare, f->name))
            pb_uint(&sub, F_SYSTEM_NAME, intern(t, f->bare));
        pb_uint(&sub, F_FILENAME, intern(t, f->file));
        pb_uint(&sub, F_START_LINE, f->firstline);
        pb_msg(p, P_FUNCTION, &sub);
        gz_field(g, p);
    }
    g->err |= sub.oom;
    free(sub.b);
}

int out_pprof(FILE *o, const struct model *m, const struct out_options *opt)
{
    (void)opt;
    if (m->nstacks && !m->stack_modes)
        return -1;                       /* not built with all_modes */
    struct gz *g = calloc(1, sizeof *g);
    struct proc_labels *pl = calloc(m->nprocs ? m->nprocs : 1, sizeof *pl);
    struct strtab t = { 0 };
    struct pb p = { 0 }, sub = { 0 };
    char cmd[4096];
    if (!g || !pl) {
        free(g);
        free(pl);
        return -1;
    }
    g->o = o;
    /* 15 + 16: zlib's way of asking for a gzip wrapper. */
    if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        free(pl);
        return -1;
    }
    intern(&t, "");                      /* string 0 must be "" */
    static const char *const names[M_NMODES] = { "wall", "cpu", "gil", "exception", "tasks" };
    for (int k = 0; k < M_NMODES; k++)
        value_type(&p, P_SAMPLE_TYPE, &sub, &t, names[k], "nanoseconds");
    pb_uint(&p, P_DEFAULT_SAMPLE_TYPE, intern(&t, out_mode_name(m->opt.mode)));
    uint64_t period = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *pr = &m->procs[i];
        model_argv_str(pr, cmd, sizeof cmd);
        pl[i].command = intern(&t, cmd);
        model_proc_label(pr, cmd, sizeof cmd);
        pl[i].process = intern(&t, cmd);
        pl[i].host = intern(&t, m->nhosts ? m->hosts[pr->host] : "");
        if (!period)
            period = pr->f->interval_ns;
    }
    if (m->nprocs) {
        uint64_t first, span = out_tree_span(m, &first);
        pb_uint(&p, P_TIME_NANOS, first);
        pb_uint(&p, P_DURATION_NANOS, span);
    }
    /* One mapping that says the functions, files and lines are all
     * there: pprof then leaves the names alone (it would otherwise try to
     * symbolize, and strip "<module>" as a C++ template). */
    pb_uint(&sub, M_ID, 1);
    pb_uint(&sub, M_FILENAME, intern(&t, "python"));
    pb_uint(&sub, M_HAS_FUNCTIONS, 1);
    pb_uint(&sub, M_HAS_FILENAMES, 1);
    pb_uint(&sub, M_HAS_LINE_NUMBERS, 1);
    pb_msg(&p, P_MAPPING, &sub);
    value_type(&p, P_PERIOD_TYPE, &sub, &t, "wall", "nanoseconds");
    pb_uint(&p, P_PERIOD, period);
    gz_field(g, &p);
    int r = samples(g, &p, m, &t, pl);
    locations(g, &p, m);
    functions(g, &p, m, &t);
    /* Last: everything above has put its strings in the table. */
    for (size_t i = 0; i < t.n && !g->err; i++) {
        pb_bytes(&p, P_STRING_TABLE, t.s[i], strlen(t.s[i]));
        gz_field(g, &p);
    }
    if (t.oom || sub.oom)
        r = -1;
    gz_put(g, NULL, 0, Z_FINISH);
    if (g->err)
        r = -1;
    deflateEnd(&g->z);
    strtab_free(&t);
    free(p.b);
    free(sub.b);
    free(pl);
    free(g);
    return r;
}
