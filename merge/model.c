/*
 * model.c — from per-file tables to one merged picture.
 *
 * Files are decoded in parallel (reader.c); merging is sequential and
 * touches each distinct (thread, stack, flags) of a file once, not each
 * sample.  Functions are identified by (qualname, file, first line), frames
 * by (function, line), and every process's stacks share one trie.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index.h"
#include "model.h"
#include "segments.h"
#include "pyprof/format.h"

/* ------------------------------------------------------------ memory */

static void oom(void)
{
    fprintf(stderr, "pyprof-merge: out of memory\n");
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        oom();
    return d;
}

/* Room in x for one more than used items (index.h). */
static void room(struct index *x, size_t used, index_hash_fn hash,
                 const struct model *m)
{
    if (index_reserve(x, used, hash, m) != 0)
        oom();
}

/* ------------------------------------------------------------ functions */

struct func_key { const char *name, *file; uint32_t line; };

static uint64_t func_hash(const char *name, const char *file, uint32_t line)
{
    return index_mix(index_hash_str(index_hash_str(INDEX_SEED, name), file) ^ line);
}
static uint64_t func_rehash(const void *ctx, uint32_t i)
{
    const struct model *m = ctx;
    return func_hash(m->funcs[i].name, m->funcs[i].file, m->funcs[i].firstline);
}
static int func_eq(const void *ctx, uint32_t i, const void *k)
{
    const struct model *m = ctx;
    const struct func_key *f = k;
    return m->funcs[i].firstline == f->line && !strcmp(m->funcs[i].name, f->name) &&
           !strcmp(m->funcs[i].file, f->file);
}

/* h is func_hash(name, file, line). */
static uint32_t intern_func(struct model *m, const char *name, const char *file,
                            const char *bare, uint32_t line, uint64_t h)
{
    room(&m->func_ix, m->nfuncs, func_rehash, m);
    struct func_key k = { name, file, line };
    uint32_t *slot = index_slot(&m->func_ix, h, func_eq, m, &k);
    if (*slot)
        return *slot - 1;
    if (m->nfuncs == m->funcs_cap) {
        m->funcs_cap = m->funcs_cap ? m->funcs_cap * 2 : 256;
        m->funcs = xrealloc(m->funcs, m->funcs_cap * sizeof *m->funcs);
    }
    struct m_func *f = &m->funcs[m->nfuncs];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    f->file = strdup(file);
    f->bare = strdup(bare);
    f->firstline = line;
    *slot = (uint32_t)++m->nfuncs;
    return (uint32_t)(m->nfuncs - 1);
}

uint32_t model_func_intern(struct model *m, const char *name, const char *file,
                           uint32_t line)
{
    return intern_func(m, name, file, "", line, func_hash(name, file, line));
}

long model_func_find(const struct model *m, const char *name, const char *file,
                     uint32_t line)
{
    if (!m->func_ix.cap)
        return -1;
    struct func_key k = { name, file, line };
    const uint32_t *slot = index_slot(&m->func_ix, func_hash(name, file, line),
                                      func_eq, m, &k);
    return *slot ? (long)*slot - 1 : -1;
}

/* ------------------------------------------------------------ frames, trie */

static uint64_t pair_hash(uint32_t a, uint32_t b)
{
    return index_mix(((uint64_t)a << 32) | b);
}
static uint64_t frame_rehash(const void *ctx, uint32_t i)
{
    const struct model *m = ctx;
    return pair_hash(m->frames[i].func, (uint32_t)m->frames[i].line);
}
static int frame_eq(const void *ctx, uint32_t i, const void *k)
{
    const struct model *m = ctx;
    const struct m_frame *f = k;
    return m->frames[i].func == f->func && m->frames[i].line == f->line;
}

static uint32_t intern_frame(struct model *m, uint32_t func, int32_t line)
{
    room(&m->frame_ix, m->nframes, frame_rehash, m);
    struct m_frame k = { func, line };
    uint32_t *slot = index_slot(&m->frame_ix, pair_hash(func, (uint32_t)line),
                                frame_eq, m, &k);
    if (*slot)
        return *slot - 1;
    if (m->nframes == m->frames_cap) {
        m->frames_cap = m->frames_cap ? m->frames_cap * 2 : 1024;
        m->frames = xrealloc(m->frames, m->frames_cap * sizeof *m->frames);
    }
    m->frames[m->nframes] = k;
    *slot = (uint32_t)++m->nframes;
    return (uint32_t)(m->nframes - 1);
}

static uint64_t tnode_rehash(const void *ctx, uint32_t i)
{
    const struct model *m = ctx;
    return pair_hash(m->tnodes[i].parent, m->tnodes[i].frame);
}
static int tnode_eq(const void *ctx, uint32_t i, const void *k)
{
    const struct model *m = ctx;
    const struct m_tnode *t = k;
    return m->tnodes[i].parent == t->parent && m->tnodes[i].frame == t->frame;
}

/* Trie node ids start at 1 (index + 1); 0 is the root. */
static uint32_t intern_tnode(struct model *m, uint32_t parent, uint32_t frame)
{
    room(&m->tnode_ix, m->ntnodes, tnode_rehash, m);
    struct m_tnode k = { parent, frame, 0 };
    uint32_t *slot = index_slot(&m->tnode_ix, pair_hash(parent, frame), tnode_eq,
                                m, &k);
    if (*slot)
        return *slot;
    if (m->ntnodes == m->tnodes_cap) {
        m->tnodes_cap = m->tnodes_cap ? m->tnodes_cap * 2 : 1024;
        m->tnodes = xrealloc(m->tnodes, m->tnodes_cap * sizeof *m->tnodes);
    }
    uint32_t boundary = m->funcs[m->frames[frame].func].boundary;
    k.interp = boundary ? boundary - 1 : parent ? m->tnodes[parent - 1].interp : 0;
    m->tnodes[m->ntnodes] = k;
    *slot = (uint32_t)++m->ntnodes;
    return (uint32_t)m->ntnodes;
}

size_t model_path(const struct model *m, uint32_t leaf, uint32_t *out, size_t cap)
{
    size_t depth = 0;
    for (uint32_t n = leaf; n; n = m->tnodes[n - 1].parent)
        depth++;
    size_t skip = depth > cap ? depth - cap : 0, k = depth - skip;
    size_t i = depth;
    for (uint32_t n = leaf; n; n = m->tnodes[n - 1].parent) {
        i--;
        if (i >= skip)
            out[i - skip] = m->tnodes[n - 1].frame;
    }
    return k;
}

/* ------------------------------------------------------------ stacks */

struct stack_key { uint32_t proc, thread, leaf; };

static uint64_t stack_hash(uint32_t p, uint32_t t, uint32_t l)
{
    return index_mix(((uint64_t)p << 40) ^ ((uint64_t)t << 24) ^ l ^ ((uint64_t)l << 50));
}
static uint64_t stack_rehash(const void *ctx, uint32_t i)
{
    const struct model *m = ctx;
    return stack_hash(m->stacks[i].proc, m->stacks[i].thread, m->stacks[i].leaf);
}
static int stack_eq(const void *ctx, uint32_t i, const void *k)
{
    const struct model *m = ctx;
    const struct stack_key *s = k;
    return m->stacks[i].proc == s->proc && m->stacks[i].thread == s->thread &&
           m->stacks[i].leaf == s->leaf;
}

/* ix must have room for the stack. */
static size_t add_stack(struct model *m, struct index *ix, uint32_t proc,
                        uint32_t thread, uint32_t leaf, uint64_t count)
{
    struct stack_key k = { proc, thread, leaf };
    uint32_t *slot = index_slot(ix, stack_hash(proc, thread, leaf), stack_eq, m, &k);
    if (!*slot) {
        if (m->nstacks == m->stacks_cap) {
            m->stacks_cap = m->stacks_cap ? m->stacks_cap * 2 : 1024;
            m->stacks = xrealloc(m->stacks, m->stacks_cap * sizeof *m->stacks);
            if (m->opt.all_modes)
                m->stack_modes = xrealloc(m->stack_modes, m->stacks_cap * M_NMODES *
                                                          sizeof *m->stack_modes);
        }
        if (m->opt.all_modes)
            memset(&m->stack_modes[m->nstacks * M_NMODES], 0,
                   M_NMODES * sizeof *m->stack_modes);
        m->stacks[m->nstacks] = (struct m_stack){ .proc = proc, .thread = thread, .leaf = leaf };
        *slot = (uint32_t)++m->nstacks;
        m->nfolded += ix == &m->stack_ix;
    }
    m->stacks[*slot - 1].count += count;
    return *slot - 1;
}

/* The index for a file's stacks, with room for n more.  A process's own
 * stacks are all made while its file is added (folded processes come
 * after the one they fold into, and add as thread 0, which no file
 * uses), so they need an index of that file's stacks only: small, and
 * cleared per file.  Only the stacks folded into a process are looked up
 * across files, in an index of those alone. */
static struct index *stack_index(struct model *m, int own, size_t n)
{
    if (!own) {
        room(&m->stack_ix, m->nfolded + n, stack_rehash, m);
        return &m->stack_ix;
    }
    if (index_reset(&m->file_ix, n) != 0)
        oom();
    return &m->file_ix;
}

/* ------------------------------------------------------------ reading */

/* What the first reading of a windowed merge keeps of each file: where
 * its host's run starts and ends (window_on_host). */
struct scan {
    uint64_t start, end;
    char *host;
    uint64_t win_from, win_until;    /* --window N's start and stop; 0: none */
};

struct job {
    const struct seg_chain *chains;     /* one profile each (segments.h) */
    size_t n;
    struct rd_file **files;
    uint64_t **code_hash;
    atomic_size_t next;
    struct m_progress *progress;
    /* A windowed merge reads twice: first into scans (no counting), then
     * each file's part wins[i]; both NULL otherwise. */
    struct scan *scans;
    const struct m_window *window;
    const struct rd_window *wins;
};

static void no_tick(void *arg, const struct rd_file *f, uint64_t ns)
{
    (void)arg, (void)f, (void)ns;
}

static void no_sample(void *arg, const struct rd_file *f, uint32_t thread,
                      uint32_t leaf, uint8_t flags)
{
    (void)arg, (void)f, (void)thread, (void)leaf, (void)flags;
}

static void scan_file(const struct seg_chain *ch, struct scan *s, const struct m_window *w)
{
    static const struct rd_sink nothing = { no_tick, no_sample, NULL, NULL };
    struct rd_file *f = rd_stream_chain(ch->paths, ch->n, &nothing, NULL);
    if (!f) {
        fprintf(stderr, "pyprof-merge: out of memory reading %s\n", ch->paths[0]);
        exit(2);
    }
    if (f->has_header) {
        s->start = f->start_ns;
        s->end = f->last_tick_ns > f->start_ns ? f->last_tick_ns : f->start_ns;
        s->host = xstrdup(f->hostname ? f->hostname : "");
    }
    for (size_t i = 0; w && w->from.kind == W_CONTROL && i < f->ncontrols; i++) {
        const struct rd_control *c = &f->controls[i];
        if (c->window != w->from.ns)
            continue;
        if (c->what == PP_CONTROL_REC_START && (!s->win_from || c->at_ns < s->win_from))
            s->win_from = c->at_ns;
        if (c->what == PP_CONTROL_REC_STOP && c->at_ns > s->win_until)
            s->win_until = c->at_ns;
    }
    rd_free(f);
}

static void count_progress(struct m_progress *pr, const struct rd_file *f)
{
    struct stat st;
    for (size_t i = 0; i < (f->seg_paths ? f->nsegs : 1); i++)
        if (stat(f->seg_paths ? f->seg_paths[i] : f->path, &st) == 0 && st.st_size > 0)
            atomic_fetch_add(&pr->bytes, (uint64_t)st.st_size);
    atomic_fetch_add(&pr->samples, f->samples);
    atomic_fetch_add(&pr->files, 1);
}

/* Hashing the names of a file's functions was most of what adding the
 * file to the model cost, on the one thread that does that: the reading
 * threads hash them instead, as each file is read. */
static uint64_t *code_hashes(const struct rd_file *f)
{
    if (!f->has_header)
        return NULL;
    uint64_t *h = xrealloc(NULL, (f->ncodes ? f->ncodes : 1) * sizeof *h);
    for (size_t c = 1; c < f->ncodes; c++) {
        const struct rd_code *k = &f->codes[c];
        h[c] = func_hash(rd_string(f, k->qualname), rd_string(f, k->filename),
                         k->firstlineno);
    }
    return h;
}

static void *reader_main(void *arg)
{
    struct job *j = arg;
    struct rd_ctx *x = rd_ctx_new();
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            break;
        if (j->scans) {
            scan_file(&j->chains[i], &j->scans[i], j->window);
            continue;
        }
        const struct seg_chain *c = &j->chains[i];
        j->files[i] = x ? rd_read_chain(x, c->paths, c->n, j->wins ? &j->wins[i] : NULL)
                        : NULL;
        if (!j->files[i]) {
            fprintf(stderr, "pyprof-merge: out of memory reading %s\n", c->paths[0]);
            exit(2);
        }
        j->code_hash[i] = code_hashes(j->files[i]);
        if (j->progress)
            count_progress(j->progress, j->files[i]);
    }
    rd_ctx_free(x);
    return NULL;
}

static void read_all(struct job *j, int jobs)
{
    pthread_t t[16];
    int started = 0;
    if (jobs > 16)
        jobs = 16;
    for (int i = 1; i < jobs; i++)
        if (pthread_create(&t[started], NULL, reader_main, j) == 0)
            started++;
    reader_main(j);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
}

/* ------------------------------------------------------------ merging */

static int keep_in(const struct m_options *o, enum m_mode mode, unsigned flags)
{
    /* a TASK_WAIT record's: pending asyncio tasks, for the tasks mode,
     * which keeps every tick's sample as wall does besides */
    if (flags & PP_SAMPLE_TASK_WAIT)
        return mode == MODE_TASKS;
    if (mode == MODE_TASKS)
        return !(flags & PP_SAMPLE_RESERVED);
    /* a CPU_EXTRA record's samples: CPU time of deadlines not sampled,
     * for CPU mode (and wall with --exclude-idle, which is CPU mode) */
    if ((flags & PP_SAMPLE_RESERVED) && mode != MODE_CPU &&
        !(mode == MODE_WALL && o->exclude_idle))
        return 0;
    if (mode == MODE_CPU && !(flags & PP_SAMPLE_ON_CPU))
        return 0;
    if (mode == MODE_GIL && !(flags & PP_SAMPLE_HOLDS_GIL))
        return 0;
    if (mode == MODE_EXC && !(flags & PP_SAMPLE_EXCEPTION))
        return 0;
    if (o->exclude_idle && !(flags & PP_SAMPLE_ON_CPU))
        return 0;
    return 1;
}

int model_keeps(const struct m_options *o, unsigned flags)
{
    return keep_in(o, o->mode, flags);
}

/* Which modes keep a sample with flags: bit k for mode k. */
static unsigned modes_of(const struct m_options *o, unsigned flags)
{
    unsigned bits = 0;
    for (int k = 0; k < M_NMODES; k++)
        bits |= (unsigned)keep_in(o, (enum m_mode)k, flags) << k;
    return bits;
}

static int cmp_reject(const void *a, const void *b)
{
    const struct m_reject *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

/* The file's rejects by leaf node, summed by the leaf's function. */
static void add_rejects(struct m_proc *p, const uint32_t *func)
{
    const struct rd_file *f = p->f;
    if (!f->nrejects)
        return;
    p->rejects = calloc(f->nrejects, sizeof *p->rejects);
    if (!p->rejects)
        return;
    for (size_t i = 0; i < f->nrejects; i++) {
        uint32_t leaf = f->rejects[i].leaf;
        uint32_t fn = leaf ? func[f->nodes[leaf].code] : M_NO_FUNC;
        size_t k = 0;
        while (k < p->nrejects && p->rejects[k].func != fn)
            k++;
        if (k == p->nrejects)
            p->rejects[p->nrejects++].func = fn;
        p->rejects[k].count += f->rejects[i].count;
    }
    qsort(p->rejects, p->nrejects, sizeof *p->rejects, cmp_reject);
}

/* The trie node of file node `leaf`'s stack under the <truncated> root
 * (M_TRUNCATED), cached in under[] (allocated on first use). */
static uint32_t truncated_leaf(struct model *m, const struct rd_file *f,
                               const uint32_t *func, uint32_t leaf,
                               uint32_t **under)
{
    if (!*under && !(*under = calloc(f->nnodes, sizeof **under))) {
        fprintf(stderr, "pyprof-merge: out of memory\n");
        exit(2);
    }
    if ((*under)[leaf])
        return (*under)[leaf];
    /* The file's nodes name parents before children (the reader checks),
     * so the chain ends; its length is bounded by the node count. */
    size_t n = 0, cap = 64;
    uint32_t *chain = malloc(cap * sizeof *chain);
    for (uint32_t k = leaf; k && chain; k = f->nodes[k].parent) {
        if (n == cap) {
            uint32_t *c = realloc(chain, (cap *= 2) * sizeof *c);
            if (!c)
                free(chain);
            chain = c;
            if (!c)
                break;
        }
        chain[n++] = k;
    }
    if (!chain) {
        fprintf(stderr, "pyprof-merge: out of memory\n");
        exit(2);
    }
    uint32_t t = intern_tnode(m, 0, intern_frame(m, intern_func(m, M_TRUNCATED,
        M_TRUNCATED_FILE, M_TRUNCATED, 0, func_hash(M_TRUNCATED, M_TRUNCATED_FILE, 0)), 0));
    while (n--) {
        const struct rd_node *k = &f->nodes[chain[n]];
        t = intern_tnode(m, t, intern_frame(m, func[k->code], k->line));
    }
    free(chain);
    (*under)[leaf] = t;
    return t;
}

static void add_file(struct model *m, uint32_t pi)
{
    struct m_proc *p = &m->procs[pi];
    struct rd_file *f = p->f;
    p->nthreads = f->nthreads;
    p->threads = calloc(f->nthreads ? f->nthreads : 1, sizeof *p->threads);
    for (size_t t = 0; t < f->nthreads; t++)
        if (f->threads[t].name) {
            p->threads[t].tid = f->threads[t].tid;
            p->threads[t].name = strdup(f->threads[t].name);
            p->threads[t].os_name = f->threads[t].os_name ?
                                    strdup(f->threads[t].os_name) : NULL;
        }
    m->missed += f->counters.missed;
    m->dropped += f->counters.rejected;
    m->sampler_cpu_ns += f->counters.sampler_cpu_ns;
    if (f->has_header)
        m->python_procs++;
    if (m->opt.pid && f->pid != m->opt.pid)
        return;
    if (m->opt.host && strcmp(f->hostname ? f->hostname : "", m->opt.host))
        return;

    /* file code -> function, file node -> trie node (parents first) */
    uint32_t *func = calloc(f->ncodes ? f->ncodes : 1, sizeof *func);
    uint32_t *tn = calloc(f->nnodes ? f->nnodes : 1, sizeof *tn);
    if (!func || !tn) {
        fprintf(stderr, "pyprof-merge: out of memory\n");
        exit(2);
    }
    /* The reader lets through only codes with defined names, and nodes of
     * defined codes: a node never meets an undefined code here. */
    for (size_t c = 1; c < f->ncodes; c++) {
        const struct rd_code *k = &f->codes[c];
        if (k->qualname)
            func[c] = intern_func(m, rd_string(f, k->qualname),
                                  rd_string(f, k->filename), rd_string(f, k->name),
                                  k->firstlineno, p->code_hash[c]);
        if (k->qualname && k->boundary)
            m->funcs[func[c]].boundary = k->boundary;
    }
    for (size_t n = 1; n < f->nnodes; n++) {
        const struct rd_node *k = &f->nodes[n];
        if (!k->code)
            continue;
        uint32_t fr = intern_frame(m, func[k->code], k->line);
        tn[n] = intern_tnode(m, k->parent ? tn[k->parent] : 0, fr);
    }
    add_rejects(p, func);
    uint32_t owner = p->folded_into >= 0 ? (uint32_t)p->folded_into : pi;
    struct index *ix = stack_index(m, owner == pi, f->counts_used);
    uint32_t *under = NULL;        /* truncated_leaf's cache */
    for (size_t i = 0; i < f->counts_cap; i++) {
        const struct rd_count *c = &f->counts[i];
        if (!c->count)
            continue;
        if (!(c->flags & PP_SAMPLE_RESERVED)) {
            p->samples_all += c->count;
            m->samples_all += c->count;
        }
        /* A thread state with no Python frame (a thread starting or ending,
         * C code holding a thread state) has nothing to attribute to. */
        if (!c->leaf)
            continue;
        /* --interpreter: only what ran in that interpreter counts. */
        if (m->opt.interp && tn[c->leaf] &&
            m->tnodes[tn[c->leaf] - 1].interp + 1 != (uint64_t)m->opt.interp)
            continue;
        int keep = model_keeps(&m->opt, c->flags);
        unsigned modes = m->opt.all_modes ? modes_of(&m->opt, c->flags) : 0;
        if (!keep && !modes)
            continue;
        int cut = (c->flags & PP_SAMPLE_TRUNCATED) != 0;
        if (keep) {
            p->samples += c->count;
            m->samples += c->count;
            if (c->thread < p->nthreads)
                p->threads[c->thread].samples += c->count;
            if (cut) {
                m->procs[owner].truncated += c->count;
                m->truncated += c->count;
            }
            if (c->flags & PP_SAMPLE_IN_GC) {
                m->procs[owner].in_gc += c->count;
                m->in_gc += c->count;
            }
            if (c->flags & PP_SAMPLE_EXCEPTION) {
                m->procs[owner].in_exc += c->count;
                m->in_exc += c->count;
            }
        }
        uint32_t leaf = cut ? truncated_leaf(m, f, func, c->leaf, &under)
                            : tn[c->leaf];
        /* A folded process's threads are not the representative's. */
        size_t s = add_stack(m, ix, owner, owner == pi ? c->thread : 0,
                             leaf, keep ? c->count : 0);
        for (int k = 0; k < M_NMODES; k++)
            if (modes >> k & 1)
                m->stack_modes[s * M_NMODES + (size_t)k] += c->count;
    }
    free(func);
    free(tn);
    free(under);
}

static void argv_key(const struct rd_file *f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < f->argc && n + 2 < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " " : "", f->argv[i]);
}

static int uid_eq(const void *ctx, uint32_t i, const void *key)
{
    const struct model *m = ctx;
    return m->procs[i].f->uid == *(const uint64_t *)key;
}

/* Every process's parent, by image id (the first process of a duplicated
 * id wins).  A parent chain that loops (only damaged or forged files can
 * do that) is cut where it comes back, so that every process is reached
 * from a root. */
static void link_tree(struct model *m)
{
    struct index by_uid = { 0 };
    if (index_reset(&by_uid, m->nprocs) != 0)
        oom();
    for (size_t i = 0; i < m->nprocs; i++) {
        struct m_proc *p = &m->procs[i];
        snprintf(p->id, sizeof p->id, "%016llx", (unsigned long long)p->f->uid);
        if (p->f->parent_uid)
            snprintf(p->parent_id, sizeof p->parent_id, "%016llx",
                     (unsigned long long)p->f->parent_uid);
        uint32_t *slot = index_slot(&by_uid, index_mix(p->f->uid), uid_eq, m,
                                    &p->f->uid);
        if (!*slot)
            *slot = (uint32_t)i + 1;
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        struct m_proc *p = &m->procs[i];
        p->parent = -1;
        if (!p->f->parent_uid)
            continue;
        const uint32_t *slot = index_slot(&by_uid, index_mix(p->f->parent_uid),
                                          uid_eq, m, &p->f->parent_uid);
        if (*slot && *slot - 1 != i)
            p->parent = (long)*slot - 1;
    }
    index_free(&by_uid);
    /* Cut loops: walking up from i, meeting i again within nprocs steps. */
    for (size_t i = 0; i < m->nprocs; i++) {
        long k = m->procs[i].parent;
        for (size_t steps = 0; k >= 0 && steps < m->nprocs; steps++) {
            if ((size_t)k == i) {
                m->procs[i].parent = -1;
                break;
            }
            k = m->procs[k].parent;
        }
    }
}

struct fold_ctx { const struct model *m; char **key; };
struct fold_key { uint64_t parent_uid; const char *argv; };

static int fold_eq(const void *ctx, uint32_t i, const void *key)
{
    const struct fold_ctx *c = ctx;
    const struct fold_key *k = key;
    return c->m->procs[i].f->parent_uid == k->parent_uid &&
           !strcmp(c->key[i], k->argv);
}

/* Identical worker processes (same argv, same parent) fold into the first.
 * The first of a (parent, argv) is never folded itself, so it is what the
 * search of earlier unfolded processes found; it is now looked up in an
 * index of those firsts rather than by comparing every pair, which took
 * seconds at 10,000 files. */
static void fold(struct model *m)
{
    char a[4096];
    for (size_t i = 0; i < m->nprocs; i++) {
        m->procs[i].folded_into = -1;
        m->procs[i].folded = 1;
    }
    if (!m->opt.fold_workers)
        return;
    struct fold_ctx c = { m, calloc(m->nprocs ? m->nprocs : 1, sizeof *c.key) };
    struct index firsts = { 0 };
    if (!c.key || index_reset(&firsts, m->nprocs) != 0)
        oom();
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct rd_file *f = m->procs[i].f;
        if (!f->has_header)
            continue;
        argv_key(f, a, sizeof a);
        struct fold_key k = { f->parent_uid, a };
        uint32_t *slot = index_slot(&firsts, index_hash_str(f->parent_uid, a),
                                    fold_eq, &c, &k);
        if (*slot) {
            m->procs[i].folded_into = (long)(*slot - 1);
            m->procs[*slot - 1].folded++;
        } else {
            c.key[i] = xrealloc(NULL, strlen(a) + 1);
            strcpy(c.key[i], a);
            *slot = (uint32_t)i + 1;
        }
    }
    for (size_t i = 0; i < m->nprocs; i++)
        free(c.key[i]);
    free(c.key);
    index_free(&firsts);
}

static uint32_t tnode_func(const struct model *m, uint32_t id)
{
    return m->frames[m->tnodes[id - 1].frame].func;
}

/* Self and total of every function.  A function counts once per stack
 * toward its total however often it recurs, so each stack is counted at
 * the outermost node of that function on its path: samples are summed
 * per trie node and below it, then one walk down the trie adds a node's
 * sum to its function's total unless a caller above is the same
 * function.  That costs the trie, not stacks times depth. */
static void count_functions(struct model *m)
{
    size_t n = m->ntnodes;
    uint64_t *below = calloc(n + 1, sizeof *below);
    uint32_t *kid = calloc(n + 1, sizeof *kid), *next = calloc(n + 1, sizeof *next);
    uint32_t *todo = calloc(n + 1, sizeof *todo), *path = calloc(n + 1, sizeof *path);
    uint32_t *open = calloc(m->nfuncs + 1, sizeof *open);
    if (!below || !kid || !next || !todo || !path || !open) {
        fprintf(stderr, "pyprof-merge: out of memory\n");
        exit(2);
    }
    for (size_t s = 0; s < m->nstacks; s++) {
        below[m->stacks[s].leaf] += m->stacks[s].count;
        m->funcs[tnode_func(m, m->stacks[s].leaf)].self += m->stacks[s].count;
    }
    /* a parent's id is below its children's */
    for (uint32_t id = (uint32_t)n; id; id--) {
        uint32_t up = m->tnodes[id - 1].parent;
        below[up] += below[id];
        next[id] = kid[up];
        kid[up] = id;
    }
    size_t ntodo = 0, depth = 0;
    for (uint32_t k = kid[0]; k; k = next[k])
        todo[ntodo++] = k;
    while (ntodo) {
        uint32_t id = todo[--ntodo], f = tnode_func(m, id);
        while (depth && path[depth - 1] != m->tnodes[id - 1].parent)
            open[tnode_func(m, path[--depth])]--;
        if (!open[f]++)
            m->funcs[f].total += below[id];
        path[depth++] = id;
        for (uint32_t k = kid[id]; k; k = next[k])
            todo[ntodo++] = k;
    }
    free(below);
    free(kid);
    free(next);
    free(todo);
    free(path);
    free(open);
}

static int cmp_start(const void *a, const void *b)
{
    const struct m_proc *x = a, *y = b;
    if (x->f->start_ns != y->f->start_ns)
        return x->f->start_ns < y->f->start_ns ? -1 : 1;
    return strcmp(x->f->path, y->f->path);
}

/* Each process's host, the hosts in the order their first process
 * started (procs are sorted by start: a host's first is its earliest on
 * its own clock, whatever the other hosts' clocks say). */
static void find_hosts(struct model *m)
{
    m->hosts = calloc(m->nprocs ? m->nprocs : 1, sizeof *m->hosts);
    m->host_first_ns = calloc(m->nprocs ? m->nprocs : 1, sizeof *m->host_first_ns);
    if (!m->hosts || !m->host_first_ns) {
        fprintf(stderr, "pyprof-merge: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        const char *h = m->procs[i].f->hostname ? m->procs[i].f->hostname : "";
        size_t k = 0;
        while (k < m->nhosts && strcmp(m->hosts[k], h))
            k++;
        if (k == m->nhosts) {
            m->hosts[k] = strdup(h);
            if (!m->hosts[k]) {
                fprintf(stderr, "pyprof-merge: out of memory\n");
                exit(2);
            }
            m->host_first_ns[k] = m->procs[i].f->start_ns;
            m->nhosts++;
        } else if (m->procs[i].f->start_ns < m->host_first_ns[k]) {
            m->host_first_ns[k] = m->procs[i].f->start_ns;
        }
        m->procs[i].host = (uint32_t)k;
    }
}

/* Each file's part of a window: the window placed on its host's run,
 * which starts at the host's first header and ends at its last sample
 * (hosts' clocks are not compared: pyprof(7), "Many hosts"). */
static struct rd_window *place_window(const struct seg_chain *chains, size_t n,
                                      const struct m_window *w, int jobs, int *missing)
{
    struct scan *sc = calloc(n ? n : 1, sizeof *sc);
    struct rd_window *wins = calloc(n ? n : 1, sizeof *wins);
    if (!sc || !wins)
        oom();
    struct job j = { .chains = chains, .n = n, .scans = sc, .window = w };
    atomic_init(&j.next, 0);
    read_all(&j, jobs);
    /* The hosts' runs, in hosts[] (a few: each file finds its own by a
     * look along them); a file without a header keeps host -1. */
    struct scan *hosts = calloc(n ? n : 1, sizeof *hosts);
    long *host_of = calloc(n ? n : 1, sizeof *host_of);
    size_t nhosts = 0;
    if (!hosts || !host_of)
        oom();
    for (size_t i = 0; i < n; i++) {
        host_of[i] = -1;
        if (!sc[i].host)
            continue;
        size_t k = 0;
        while (k < nhosts && strcmp(hosts[k].host, sc[i].host))
            k++;
        if (k == nhosts)
            hosts[nhosts++] = sc[i];
        hosts[k].start = sc[i].start < hosts[k].start ? sc[i].start : hosts[k].start;
        hosts[k].end = sc[i].end > hosts[k].end ? sc[i].end : hosts[k].end;
        if (sc[i].win_from && (!hosts[k].win_from || sc[i].win_from < hosts[k].win_from))
            hosts[k].win_from = sc[i].win_from;
        if (sc[i].win_until > hosts[k].win_until)
            hosts[k].win_until = sc[i].win_until;
        host_of[i] = (long)k;
    }
    *missing = w->from.kind == W_CONTROL;
    for (size_t k = 0; k < nhosts; k++)
        *missing &= !hosts[k].win_from;
    for (size_t i = 0; i < n; i++) {
        wins[i] = (struct rd_window){ 0, UINT64_MAX };
        const struct scan *h = host_of[i] >= 0 ? &hosts[host_of[i]] : NULL;
        if (h && w->from.kind == W_CONTROL)
            /* a window still open when the file ended runs to its end */
            wins[i] = (struct rd_window){ h->win_from ? h->win_from : UINT64_MAX,
                                          h->win_until ? h->win_until : UINT64_MAX };
        else if (h)
            window_on_host(w, h->start, h->end, &wins[i].lo, &wins[i].hi);
    }
    for (size_t i = 0; i < n; i++)
        free(sc[i].host);
    free(sc);
    free(hosts);
    free(host_of);
    return wins;
}

/* Leaves out the processes whose life (header to last sample) is outside
 * their window, but for the ancestors of those kept; the tree is linked
 * again over what is left. */
static void leave_out(struct model *m)
{
    char *keep = calloc(m->nprocs ? m->nprocs : 1, 1);
    if (!keep)
        oom();
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *p = &m->procs[i];
        uint64_t end = p->f->last_tick_ns > p->f->start_ns ? p->f->last_tick_ns
                                                           : p->f->start_ns;
        if (end >= p->win.lo && p->f->start_ns < p->win.hi)
            for (long k = (long)i; k >= 0 && !keep[k]; k = m->procs[k].parent)
                keep[k] = 1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        if (keep[i]) {
            m->procs[kept++] = m->procs[i];
            continue;
        }
        rd_free(m->procs[i].f);
        free(m->procs[i].code_hash);
        m->outside++;
    }
    m->nprocs = kept;
    free(keep);
    link_tree(m);
}

struct model *model_build(char *const *paths, size_t npaths, const struct m_options *o,
                          int jobs)
{
    struct seg_chain *chains;
    size_t n = segments_group(paths, npaths, &chains);
    struct model *m = calloc(1, sizeof *m);
    struct rd_file **files = calloc(n ? n : 1, sizeof *files);
    uint64_t **hashes = calloc(n ? n : 1, sizeof *hashes);
    if (!m || !files || !hashes)
        return NULL;
    m->opt = *o;
    struct rd_window *wins = window_set(o->window)
                             ? place_window(chains, n, o->window, jobs, &m->window_missing)
                             : NULL;
    struct job j = { .chains = chains, .n = n, .files = files, .code_hash = hashes,
                     .progress = o->progress, .wins = wins };
    atomic_init(&j.next, 0);
    read_all(&j, jobs);

    m->procs = calloc(n ? n : 1, sizeof *m->procs);
    m->problems = calloc(n ? n : 1, sizeof *m->problems);
    for (size_t i = 0; i < n; i++) {
        struct rd_file *f = files[i];
        if (f->problem)
            m->problems[m->nproblems++] = (struct m_problem){
                strdup(f->problem_path ? f->problem_path : f->path),
                strdup(f->problem), f->samples };
        if (f->has_header)
            m->procs[m->nprocs++] = (struct m_proc){
                .f = f, .code_hash = hashes[i],
                .win = wins ? wins[i] : (struct rd_window){ 0, UINT64_MAX } };
        else
            rd_free(f);       /* nothing usable; its problem says why */
    }
    free(files);
    free(hashes);
    free(wins);
    segments_free(chains, n);
    qsort(m->procs, m->nprocs, sizeof *m->procs, cmp_start);
    link_tree(m);
    if (window_set(o->window))
        leave_out(m);
    find_hosts(m);
    fold(m);
    for (size_t i = 0; i < m->nprocs; i++) {
        add_file(m, (uint32_t)i);
        free(m->procs[i].code_hash);
        m->procs[i].code_hash = NULL;
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        struct m_proc *p = &m->procs[i];
        p->group.samples = p->samples;
        p->group.rejected = p->f->counters.rejected;
        p->group.missed = p->f->counters.missed;
        p->group.sampler_cpu_ns = p->f->counters.sampler_cpu_ns;
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct m_proc *p = &m->procs[i];
        if (p->folded_into < 0)
            continue;
        struct m_proc *r = &m->procs[p->folded_into];
        r->group.samples += p->samples;
        r->group.rejected += p->f->counters.rejected;
        r->group.missed += p->f->counters.missed;
        r->group.sampler_cpu_ns += p->f->counters.sampler_cpu_ns;
    }
    count_functions(m);
    return m;
}

void model_free(struct model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nprocs; i++) {
        for (size_t t = 0; t < m->procs[i].nthreads; t++) {
            free(m->procs[i].threads[t].name);
            free(m->procs[i].threads[t].os_name);
        }
        free(m->procs[i].threads);
        free(m->procs[i].rejects);
        rd_free(m->procs[i].f);
    }
    for (size_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].file);
        free(m->funcs[i].bare);
    }
    for (size_t i = 0; i < m->nproblems; i++) {
        free((char *)m->problems[i].file);
        free((char *)m->problems[i].error);
    }
    free(m->unprofiled);
    for (size_t i = 0; i < m->nhosts; i++)
        free(m->hosts[i]);
    free(m->hosts);
    free(m->host_first_ns);
    free(m->procs);
    free(m->funcs);
    free(m->frames);
    free(m->tnodes);
    free(m->stacks);
    free(m->stack_modes);
    index_free(&m->func_ix);
    index_free(&m->frame_ix);
    index_free(&m->tnode_ix);
    index_free(&m->stack_ix);
    index_free(&m->file_ix);
    free(m->problems);
    free(m);
}

int model_damaged(const struct model *m) { return m->nproblems > 0; }
int model_empty(const struct model *m) { return m->nprocs == 0; }

const char *model_started_by(int how)
{
    switch (how) {
    case PP_START_ROOT:  return "root";
    case PP_START_FORK:  return "fork";
    case PP_START_EXEC:  return "exec";
    case PP_START_SPAWN: return "spawn";
    default:             return "unknown";
    }
}

void model_exit_str(const struct m_proc *p, char *buf, size_t cap)
{
    const struct rd_file *f = p->f;
    if (!f->complete)
        snprintf(buf, cap, "unknown (file incomplete)");
    else if (f->end_how == PP_END_EXIT)
        snprintf(buf, cap, "exit %lld", (long long)f->end_value);
    else if (f->end_how == PP_END_SIGNAL)
        snprintf(buf, cap, "signal %lld", (long long)f->end_value);
    else if (f->end_how == PP_END_EXEC)
        snprintf(buf, cap, "exec");
    else if (f->end_how == PP_END_SEGMENT)
        snprintf(buf, cap, "goes on (segment %u)", f->seg_last + 1);
    else
        snprintf(buf, cap, "ended");
}

size_t model_escape_byte(unsigned char c, char out[4])
{
    static const char hex[] = "0123456789abcdef";
    if (c >= 0x20 && c != 0x7f) {
        out[0] = (char)c;
        return 1;
    }
    out[0] = '\\';
    if (c == '\n' || c == '\t') {
        out[1] = c == '\n' ? 'n' : 't';
        return 2;
    }
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

/* For display: one line whatever the arguments hold (python -c scripts
 * have newlines). */
void model_argv_str(const struct m_proc *p, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < p->f->argc && n + 5 < cap; i++) {
        if (i)
            buf[n++] = ' ';
        for (const unsigned char *s = (const unsigned char *)p->f->argv[i];
             *s && n + 5 < cap; s++)
            n += model_escape_byte(*s, buf + n);
    }
    buf[n] = 0;
}
