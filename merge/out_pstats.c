/*
 * out_pstats.c — the file Python's pstats.Stats loads: a marshal of
 * {(file, line, funcname): (cc, nc, tt, ct, callers)} where callers is
 * {(caller's file, line, funcname): (nc, cc, tt, ct)} (the two tuples
 * order their counts differently, as cProfile writes them).
 *
 * Samples stand in for calls (man/pyprof-merge.1, --format pstats): cc
 * counts the samples with the function on the stack, once per stack; nc
 * counts its frames on those stacks, so recursion shows as nc/cc; tt is
 * the samples with the function innermost, ct the samples with it
 * anywhere, once per stack (a recursive function's time is not counted
 * once per level), both times the process's interval, in seconds.
 *
 * Marshal is written by hand for the few types used: dicts, tuples,
 * strings (always valid UTF-8: bytes that are not become U+FFFD), ints
 * (32-bit, or marshal's long form when larger) and binary floats.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "output.h"
#include "pyprof/format.h"

/* ------------------------------------------------------------ marshal */

static void w_byte(FILE *o, int c) { fputc(c, o); }

static void w_i32(FILE *o, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        fputc((int)(u >> (8 * i) & 0xff), o);
}

static void w_int(FILE *o, uint64_t v)
{
    if (v <= INT32_MAX) {
        w_byte(o, 'i');
        w_i32(o, (int32_t)v);
        return;
    }
    /* marshal's long: a digit count, then 15-bit digits, low first. */
    int n = 0;
    for (uint64_t x = v; x; x >>= 15)
        n++;
    w_byte(o, 'l');
    w_i32(o, n);
    for (; v; v >>= 15) {
        fputc((int)(v & 0xff), o);
        fputc((int)(v >> 8 & 0x7f), o);
    }
}

static void w_float(FILE *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    w_byte(o, 'g');
    for (int i = 0; i < 8; i++)
        fputc((int)(u >> (8 * i) & 0xff), o);
}

static void w_str(FILE *o, const char *s)
{
    /* The length comes first: count the bytes as they will be written. */
    const unsigned char *u = (const unsigned char *)s;
    size_t len = 0;
    for (size_t i = 0; u[i];) {
        size_t n = u[i] < 0x80 ? 1 : out_utf8_len(u + i);
        len += n ? n : 3;
        i += n ? n : 1;
    }
    w_byte(o, 'u');
    w_i32(o, (int32_t)(len > INT32_MAX ? INT32_MAX : len));
    for (size_t i = 0, put = 0; u[i] && put < len;) {
        size_t n = u[i] < 0x80 ? 1 : out_utf8_len(u + i);
        if (n)
            fwrite(u + i, 1, n, o);
        else
            fputs("\xef\xbf\xbd", o);
        put += n ? n : 3;
        i += n ? n : 1;
    }
}

static void w_tuple(FILE *o, int n)
{
    w_byte(o, '(');
    w_i32(o, n);
}

static void w_key(FILE *o, const struct m_func *f)
{
    w_tuple(o, 3);
    w_str(o, f->file);
    w_int(o, f->firstline);
    w_str(o, f->name);
}

/* ------------------------------------------------------------ counting */

struct fstat { uint64_t cc, nc; double tt, ct; uint32_t stamp, first_edge; };

struct edge {
    uint32_t caller, callee, stamp, next;   /* next: of the same callee  */
    uint64_t nc, cc;
    double tt, ct;
};

/* Edge ids start at 1 (e[0] unused): the index's item i is edge i + 1. */
struct edges {
    struct edge *e; size_t n, cap;
    struct index ix;
};

static uint64_t edge_hash(uint32_t a, uint32_t b)
{
    return index_mix((uint64_t)a << 32 | b);
}
static uint64_t edge_rehash(const void *ctx, uint32_t i)
{
    const struct edge *e = &((const struct edges *)ctx)->e[i + 1];
    return edge_hash(e->caller, e->callee);
}
static int edge_eq(const void *ctx, uint32_t i, const void *key)
{
    const struct edge *e = &((const struct edges *)ctx)->e[i + 1];
    const uint32_t *k = key;
    return e->caller == k[0] && e->callee == k[1];
}

/* The edge caller -> callee, made on first use; 0 when out of memory. */
static uint32_t edge_of(struct edges *E, struct fstat *fs, uint32_t caller,
                        uint32_t callee)
{
    if (index_reserve(&E->ix, E->n - 1, edge_rehash, E) != 0)
        return 0;
    const uint32_t key[2] = { caller, callee };
    uint32_t *slot = index_slot(&E->ix, edge_hash(caller, callee), edge_eq, E, key);
    if (*slot)
        return *slot;
    if (E->n >= E->cap) {
        size_t cap = E->cap ? E->cap * 2 : 1024;
        struct edge *e = realloc(E->e, cap * sizeof *e);
        if (!e)
            return 0;
        E->e = e;
        E->cap = cap;
    }
    uint32_t id = (uint32_t)E->n++;
    E->e[id] = (struct edge){ .caller = caller, .callee = callee,
                              .next = fs[callee].first_edge };
    fs[callee].first_edge = id;
    *slot = id;
    return id;
}

/* Adds stack number si (its frames outermost first in path) to the
 * functions and edges.  A stamp says the stack was already counted. */
static int add_stack(const struct model *m, struct fstat *fs, struct edges *E,
                     const uint32_t *path, size_t depth, uint32_t si, uint64_t count,
                     double seconds)
{
    uint32_t stamp = si + 1, prev = 0;
    for (size_t d = 0; d < depth; d++) {
        uint32_t f = m->frames[path[d]].func;
        struct fstat *x = &fs[f];
        x->nc += count;
        if (x->stamp != stamp) {
            x->stamp = stamp;
            x->cc += count;
            x->ct += seconds;
        }
        if (d + 1 == depth)
            x->tt += seconds;
        if (d) {
            uint32_t id = edge_of(E, fs, prev, f);
            if (!id)
                return -1;
            struct edge *e = &E->e[id];
            e->nc += count;
            if (e->stamp != stamp) {
                e->stamp = stamp;
                e->cc += count;
                e->ct += seconds;
            }
            if (d + 1 == depth)
                e->tt += seconds;
        }
        prev = f;
    }
    return 0;
}

int out_pstats(FILE *o, const struct model *m, const struct out_options *opt)
{
    (void)opt;
    struct fstat *fs = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *fs);
    uint32_t *path = malloc((PP_MAX_DEPTH + 1) * sizeof *path);
    struct edges E = { .n = 1 };
    int r = fs && path ? 0 : -1;
    for (size_t i = 0; i < m->nstacks && !r; i++) {
        const struct m_stack *s = &m->stacks[i];
        if (!s->count)
            continue;
        size_t depth = model_path(m, s->leaf, path, PP_MAX_DEPTH + 1);
        r = add_stack(m, fs, &E, path, depth, (uint32_t)i, s->count,
                      out_stack_ns(m, s, s->count) / 1e9);
    }
    if (!r) {
        w_byte(o, '{');
        for (size_t f = 0; f < m->nfuncs; f++) {
            const struct fstat *x = &fs[f];
            if (!x->cc)
                continue;
            w_key(o, &m->funcs[f]);
            w_tuple(o, 5);
            w_int(o, x->cc);
            w_int(o, x->nc);
            w_float(o, x->tt);
            w_float(o, x->ct);
            w_byte(o, '{');
            for (uint32_t id = x->first_edge; id; id = E.e[id].next) {
                const struct edge *e = &E.e[id];
                w_key(o, &m->funcs[e->caller]);
                w_tuple(o, 4);
                w_int(o, e->nc);
                w_int(o, e->cc);
                w_float(o, e->tt);
                w_float(o, e->ct);
            }
            w_byte(o, '0');
        }
        w_byte(o, '0');
    }
    free(E.e);
    index_free(&E.ix);
    free(fs);
    free(path);
    return r;
}
