/* live.c — see live.h. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index.h"
#include "live.h"
#include "pyprof/format.h"
#include "reader.h"

/* A sample, or a CPU_EXTRA record's samples, kept while it is recent. */
struct ev { uint32_t proc, thread, leaf, count; uint8_t flags; uint64_t t; };

/* (thread, leaf, flags) of one process, counted since its start. */
struct cnt { uint32_t thread, leaf; uint8_t flags; uint64_t count; };

struct lp {
    struct live *lv;
    uint32_t index;
    char *path;
    struct rd_follow *fw;    /* NULL once the file has ended and is closed */
    struct rd_file *done;    /* the file then                              */
    uint32_t *func_of_code;  /* 1 + the function of each code; 0: not yet  */
    size_t ncached;
    uint64_t tick_ns;        /* the tick being read (the file's clock)     */
    struct cnt *counts;
    size_t counts_cap, counts_used;
    struct index count_ix;
    uint64_t samples;
    struct rd_sink sink;
    uint32_t image;          /* 1 + the first file of its image; 0: not yet */
};

struct live {
    char *dir;
    uint64_t recent_ns, now, first;
    struct lp **procs;
    size_t nprocs, procs_cap;
    struct ev *ring;                 /* events oldest first from head      */
    size_t ring_cap, head, used;
    struct model *names;             /* its functions table alone         */
    struct index path_ix;            /* procs by path: each file once      */
    uint64_t polled;                 /* samples read by the current poll  */
};

static void oom(void)
{
    fputs("pyprof-merge: out of memory\n", stderr);
    exit(2);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    p = realloc(p, c * elem);
    if (!p)
        oom();
    memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
    *cap = c;
    return p;
}

static const struct rd_file *lp_file(const struct lp *p)
{
    return p->fw ? rd_follow_file(p->fw) : p->done;
}

/* ------------------------------------------------------------ functions */

static uint32_t func_id(struct live *lv, const char *name, const char *file, uint32_t line)
{
    return model_func_intern(lv->names, name, file, line);
}

/* The function of code c of p's file. */
static uint32_t func_of(struct live *lv, struct lp *p, uint32_t c)
{
    const struct rd_file *f = lp_file(p);
    if (c >= p->ncached) {
        size_t cap = p->ncached;
        p->func_of_code = grow(p->func_of_code, &cap, f->ncodes > c ? f->ncodes : c + 1,
                               sizeof *p->func_of_code);
        p->ncached = cap;
    }
    if (!p->func_of_code[c]) {
        const struct rd_code *k = c < f->ncodes ? &f->codes[c] : NULL;
        p->func_of_code[c] = 1 + (k ? func_id(lv, rd_string(f, k->qualname),
                                              rd_string(f, k->filename), k->firstlineno)
                                    : func_id(lv, "?", "?", 0));
    }
    return p->func_of_code[c] - 1;
}

/* ------------------------------------------------------------ reading */

static uint64_t cnt_hash_of(uint32_t thread, uint32_t leaf, uint8_t flags)
{
    return index_mix((uint64_t)thread << 40 ^ (uint64_t)leaf << 8 ^ flags);
}

static uint64_t cnt_hash(const void *ctx, uint32_t i)
{
    const struct cnt *c = &((const struct lp *)ctx)->counts[i];
    return cnt_hash_of(c->thread, c->leaf, c->flags);
}

static int cnt_eq(const void *ctx, uint32_t i, const void *key)
{
    const struct cnt *c = &((const struct lp *)ctx)->counts[i], *k = key;
    return c->thread == k->thread && c->leaf == k->leaf && c->flags == k->flags;
}

static void count(struct lp *p, uint32_t thread, uint32_t leaf, uint8_t flags, uint64_t n)
{
    if (index_reserve(&p->count_ix, p->counts_used, cnt_hash, p) != 0)
        oom();
    struct cnt key = { thread, leaf, flags, 0 };
    uint32_t *slot = index_slot(&p->count_ix, cnt_hash_of(thread, leaf, flags), cnt_eq, p,
                                &key);
    if (!*slot) {
        p->counts = grow(p->counts, &p->counts_cap, p->counts_used + 1, sizeof *p->counts);
        p->counts[p->counts_used++] = key;
        *slot = (uint32_t)p->counts_used;
    }
    p->counts[*slot - 1].count += n;
}

static void keep_recent(struct live *lv, struct ev e)
{
    if (lv->used == lv->ring_cap) {
        size_t cap = lv->ring_cap ? lv->ring_cap * 2 : 4096;
        struct ev *r = malloc(cap * sizeof *r);
        if (!r)
            oom();
        for (size_t i = 0; i < lv->used; i++)
            r[i] = lv->ring[(lv->head + i) % lv->ring_cap];
        free(lv->ring);
        lv->ring = r;
        lv->ring_cap = cap;
        lv->head = 0;
    }
    lv->ring[(lv->head + lv->used++) % lv->ring_cap] = e;
}

static void on_tick(void *arg, const struct rd_file *f, uint64_t since_start)
{
    struct lp *p = arg;
    p->tick_ns = f->start_ns + since_start;
    if (p->tick_ns > p->lv->now)
        p->lv->now = p->tick_ns;
    if (!p->lv->first || p->tick_ns < p->lv->first)
        p->lv->first = p->tick_ns;
}

static void on_sample(void *arg, const struct rd_file *f, uint32_t thread, uint32_t leaf,
                      uint8_t flags)
{
    (void)f;
    struct lp *p = arg;
    count(p, thread, leaf, flags, 1);
    p->samples++;
    p->lv->polled++;
    keep_recent(p->lv, (struct ev){ p->index, thread, leaf, 1, flags, p->tick_ns });
}

static void on_extra(void *arg, const struct rd_file *f, uint32_t thread, uint32_t leaf,
                     uint8_t flags, uint64_t n)
{
    (void)f;
    struct lp *p = arg;
    count(p, thread, leaf, flags, n);
    keep_recent(p->lv, (struct ev){ p->index, thread, leaf,
                                    n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, flags,
                                    p->tick_ns });
}

static uint64_t path_hash(const void *ctx, uint32_t i)
{
    return index_hash_str(INDEX_SEED, ((const struct live *)ctx)->procs[i]->path);
}

static int path_eq(const void *ctx, uint32_t i, const void *key)
{
    return !strcmp(((const struct live *)ctx)->procs[i]->path, key);
}

/* The slot of path in path_ix: 0 if it is not followed yet. */
static uint32_t *path_slot(struct live *lv, const char *path)
{
    if (index_reserve(&lv->path_ix, lv->nprocs, path_hash, lv) != 0)
        oom();
    return index_slot(&lv->path_ix, index_hash_str(INDEX_SEED, path), path_eq, lv, path);
}

static void find_files(struct live *lv)
{
    DIR *d = opendir(lv->dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 4 || strcmp(e->d_name + n - 4, ".zst"))
            continue;
        char *path = malloc(strlen(lv->dir) + n + 2);
        if (!path)
            oom();
        sprintf(path, "%s/%s", lv->dir, e->d_name);
        uint32_t *slot = path_slot(lv, path);
        if (*slot) {
            free(path);
            continue;
        }
        struct lp *p = calloc(1, sizeof *p);
        if (!p)
            oom();
        p->lv = lv;
        p->index = (uint32_t)lv->nprocs;
        p->path = path;
        p->sink = (struct rd_sink){ on_tick, on_sample, p, on_extra };
        p->fw = rd_follow_open(path, &p->sink);
        if (!p->fw)
            oom();
        lv->procs = grow(lv->procs, &lv->procs_cap, lv->nprocs + 1, sizeof *lv->procs);
        lv->procs[lv->nprocs++] = p;
        *slot = (uint32_t)lv->nprocs;
    }
    closedir(d);
}

uint64_t live_poll(struct live *lv)
{
    lv->polled = 0;
    find_files(lv);
    for (size_t i = 0; i < lv->nprocs; i++) {
        struct lp *p = lv->procs[i];
        if (!p->fw)
            continue;
        int r = rd_follow_poll(p->fw);
        /* An ended or damaged file grows no more: its decompressor and
         * descriptor go, what was read stays. */
        if (r < 0 || rd_follow_file(p->fw)->complete) {
            p->done = rd_follow_close(p->fw);
            p->fw = NULL;
        }
    }
    while (lv->used && lv->ring[lv->head].t + lv->recent_ns < lv->now) {
        lv->head = (lv->head + 1) % lv->ring_cap;
        lv->used--;
    }
    return lv->polled;
}

uint64_t live_now(const struct live *lv) { return lv->now; }

struct live *live_new(const char *dir, double recent_s)
{
    struct live *lv = calloc(1, sizeof *lv);
    if (!lv || !(lv->dir = strdup(dir)) || !(lv->names = calloc(1, sizeof *lv->names)))
        oom();
    lv->recent_ns = (uint64_t)(recent_s * 1e9);
    return lv;
}

void live_free(struct live *lv)
{
    if (!lv)
        return;
    for (size_t i = 0; i < lv->nprocs; i++) {
        struct lp *p = lv->procs[i];
        rd_free(p->fw ? rd_follow_close(p->fw) : p->done);
        free(p->func_of_code);
        free(p->counts);
        index_free(&p->count_ix);
        free(p->path);
        free(p);
    }
    model_free(lv->names);
    index_free(&lv->path_ix);
    free(lv->procs);
    free(lv->ring);
    free(lv->dir);
    free(lv);
}

/* ------------------------------------------------------------ looking */

/* The first file of the image that p's file is a segment of (pyprof(5),
 * SEGMENT): one row and one filter for the image's segments.  A file
 * whose header is not read yet stands for itself. */
static uint32_t image_of(const struct live *lv, uint32_t i)
{
    struct lp *p = lv->procs[i];
    if (p->image)
        return p->image - 1;
    const struct rd_file *f = lp_file(p);
    if (!f->has_header)
        return i;
    uint32_t img = i;
    if (f->segmented)
        for (uint32_t k = 0; k < i; k++) {
            const struct rd_file *g = lp_file(lv->procs[k]);
            if (g->has_header && g->segmented && g->uid == f->uid && g->pid == f->pid &&
                !strcmp(g->hostname, f->hostname)) {
                img = image_of(lv, k);
                break;
            }
        }
    p->image = img + 1;
    return img;
}

/* The image's file with the latest segment: its state and threads. */
static uint32_t newest_of(const struct live *lv, uint32_t img)
{
    uint32_t best = img;
    for (uint32_t k = img + 1; k < lv->nprocs; k++)
        if (image_of(lv, k) == img &&
            lp_file(lv->procs[k])->seg_last >= lp_file(lv->procs[best])->seg_last)
            best = k;
    return best;
}

/* The span the recent samples cover: the recent seconds, or the run's
 * life when it is younger. */
static double recent_span_s(const struct live *lv)
{
    uint64_t span = lv->now - lv->first;
    if (span > lv->recent_ns)
        span = lv->recent_ns;
    return span > 0 ? (double)span / 1e9 : 1.0;
}

/* Whether the process that writes f is gone without ending its file
 * (SIGKILL): asked of the kernel only for a process of this host. */
static int gone(const struct rd_file *f)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return f->hostname && !strcmp(f->hostname, host) && f->pid > 0 &&
           kill((pid_t)f->pid, 0) != 0 && errno == ESRCH;
}

static void state_of(const struct rd_file *f, int damaged, char *buf, size_t cap)
{
    if (damaged)
        snprintf(buf, cap, "damaged");
    else if (!f->complete && gone(f))
        snprintf(buf, cap, "gone");
    else if (!f->complete)
        snprintf(buf, cap, "running");
    else
        model_exit_str(&(struct m_proc){ .f = (struct rd_file *)f }, buf, cap);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct live_proc *x = a, *y = b;
    if (x->ended != y->ended)
        return x->ended - y->ended;
    if (x->cpu != y->cpu)
        return x->cpu > y->cpu ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t live_procs(const struct live *lv, struct live_proc *rows, size_t cap)
{
    size_t n = 0;
    struct live_proc *all = calloc(lv->nprocs ? lv->nprocs : 1, sizeof *all);
    long *row_of = calloc(lv->nprocs ? lv->nprocs : 1, sizeof *row_of);
    if (!all || !row_of)
        oom();
    double span = recent_span_s(lv);
    for (size_t i = 0; i < lv->nprocs; i++) {
        const struct lp *p = lv->procs[i];
        const struct rd_file *f = lp_file(p);
        row_of[i] = -1;
        if (!f->has_header)
            continue;
        uint32_t img = image_of(lv, (uint32_t)i);
        if (img != i) {           /* a later segment: its image's row */
            row_of[i] = row_of[img];
            continue;
        }
        struct live_proc *r = &all[n];
        row_of[i] = (long)n++;
        for (size_t k = i; k < lv->nprocs; k++)
            if (image_of(lv, (uint32_t)k) == img)
                r->samples += lv->procs[k]->samples;
        p = lv->procs[newest_of(lv, img)];
        f = lp_file(p);
        r->pid = (long)f->pid;
        r->index = img;
        struct m_proc mp = { .f = (struct rd_file *)f };
        model_proc_label(&mp, r->label, sizeof r->label);
        state_of(f, f->problem && !f->complete && !p->fw, r->state, sizeof r->state);
        r->ended = f->complete || !p->fw || !strcmp(r->state, "gone");
    }
    for (size_t k = 0; k < lv->used; k++) {
        const struct ev *e = &lv->ring[(lv->head + k) % lv->ring_cap];
        if (row_of[e->proc] < 0)
            continue;
        struct live_proc *r = &all[row_of[e->proc]];
        if (!(e->flags & PP_SAMPLE_RESERVED))
            r->samples_per_s += 1.0 / span;
        if (e->flags & PP_SAMPLE_ON_CPU)
            r->cpu += (double)e->count *
                      (double)lp_file(lv->procs[e->proc])->interval_ns / 1e9 / span;
    }
    qsort(all, n, sizeof *all, cmp_proc);
    memcpy(rows, all, (n < cap ? n : cap) * sizeof *rows);
    free(all);
    free(row_of);
    return n;
}

size_t live_threads(const struct live *lv, uint32_t proc, uint32_t *tids,
                    const char **names, size_t cap)
{
    if (proc >= lv->nprocs)
        return 0;
    const struct rd_file *f = lp_file(lv->procs[newest_of(lv, image_of(lv, proc))]);
    size_t n = 0;
    for (size_t t = 1; t < f->nthreads; t++) {
        if (!f->threads[t].name)
            continue;
        if (n < cap) {
            tids[n] = f->threads[t].tid;
            names[n] = f->threads[t].name;
        }
        n++;
    }
    return n;
}

struct tally {
    struct live *lv;
    const struct live_query *q;
    struct m_options opt;
    uint64_t *self, *total, samples;
    uint32_t *stamp, pass;
};

static void add(struct tally *t, uint32_t proc, uint32_t thread, uint32_t leaf,
                uint8_t flags, uint64_t n)
{
    struct lp *p = t->lv->procs[proc];
    const struct rd_file *f = lp_file(p);
    if ((t->q->proc >= 0 && image_of(t->lv, proc) != (uint32_t)t->q->proc) ||
        !model_keeps(&t->opt, flags))
        return;
    if (t->q->tid && (thread >= f->nthreads || f->threads[thread].tid != t->q->tid))
        return;
    t->samples += n;
    t->pass++;
    for (uint32_t node = leaf, depth = 0; node && node < f->nnodes && depth <= PP_MAX_DEPTH;
         node = f->nodes[node].parent, depth++) {
        uint32_t fn = func_of(t->lv, p, f->nodes[node].code);
        if (fn >= t->lv->names->nfuncs)
            continue;
        if (node == leaf)
            t->self[fn] += n;
        if (t->stamp[fn] != t->pass) {
            t->stamp[fn] = t->pass;
            t->total[fn] += n;
        }
    }
}

static const struct tally *sort_by;

static int cmp_func(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const uint64_t *k = sort_by->q->by_total ? sort_by->total : sort_by->self;
    const uint64_t *k2 = sort_by->q->by_total ? sort_by->self : sort_by->total;
    if (k[x] != k[y])
        return k[x] > k[y] ? -1 : 1;
    if (k2[x] != k2[y])
        return k2[x] > k2[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

size_t live_funcs(const struct live *lv, const struct live_query *q,
                  struct live_func *rows, size_t cap, uint64_t *samples)
{
    struct live *w = (struct live *)lv;   /* functions are named as met */
    /* Every code of every file named first: the tables below stay put. */
    for (size_t i = 0; i < w->nprocs; i++) {
        const struct rd_file *f = lp_file(w->procs[i]);
        for (uint32_t c = 1; c < f->ncodes; c++)
            func_of(w, w->procs[i], c);
    }
    size_t nf = w->names->nfuncs ? w->names->nfuncs : 1;
    struct tally t = { .lv = w, .q = q, .opt = { .mode = q->mode },
                       .self = calloc(nf, sizeof *t.self),
                       .total = calloc(nf, sizeof *t.total),
                       .stamp = calloc(nf, sizeof *t.stamp) };
    uint32_t *order = calloc(nf, sizeof *order);
    if (!t.self || !t.total || !t.stamp || !order)
        oom();
    if (q->since_start) {
        for (size_t i = 0; i < w->nprocs; i++)
            for (size_t k = 0; k < w->procs[i]->counts_used; k++) {
                const struct cnt *c = &w->procs[i]->counts[k];
                add(&t, (uint32_t)i, c->thread, c->leaf, c->flags, c->count);
            }
    } else {
        for (size_t k = 0; k < w->used; k++) {
            const struct ev *e = &w->ring[(w->head + k) % w->ring_cap];
            add(&t, e->proc, e->thread, e->leaf, e->flags, e->count);
        }
    }
    size_t n = 0;
    for (uint32_t i = 0; i < w->names->nfuncs; i++)
        if (t.self[i] || t.total[i])
            order[n++] = i;
    sort_by = &t;
    qsort(order, n, sizeof *order, cmp_func);
    size_t k = 0;
    for (; k < n && k < cap; k++) {
        const struct m_func *f = &w->names->funcs[order[k]];
        rows[k] = (struct live_func){ f->name, f->file, f->firstline, t.self[order[k]],
                                      t.total[order[k]] };
    }
    *samples = t.samples;
    free(t.self);
    free(t.total);
    free(t.stamp);
    free(order);
    return k;
}
