/*
 * reader.c — streaming, damage-tolerant decoding of one file.
 *
 * Input is untrusted: every length and id is checked before use, record
 * payloads are bounded by PP_MAX_RECORD, and the tables of one file may not
 * take more than READ_MEM_CAP bytes.  Damage never loses what came before
 * it: zstd emits every block completed before a cut, and a record is kept
 * as soon as it is whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pyprof/c_call.h"
#include "pyprof/file_name.h"
#include "pyprof/format.h"
#include "reader.h"

#define READ_MEM_CAP  (512u << 20)
#define IN_CHUNK      (128u << 10)
#define STR_BLOCK     (64u << 10)

/* A file's strings (names, argv, thread names) are carved from a few
 * large blocks: a file has hundreds, and one malloc and one free each
 * were a good part of what reading and freeing a small file cost. */
struct rd_block { struct rd_block *next; size_t used, cap; char data[]; };

/* A slot of the count table: the count sits above the flags, so that a
 * slot takes 16 bytes, not rd_count's 24, and probes touch less memory. */
struct slot { uint32_t thread, leaf; uint64_t n; };    /* count << 8 | flags */

/* What a reading thread keeps from one file to the next.  Made afresh
 * for every file, zstd's context and window, the buffers and the count
 * table cost more than reading a small file does (page faults included),
 * so they are reused; sizes a file sees stay those it would see alone. */
struct rd_ctx {
    ZSTD_DCtx *z;
    uint8_t *chunk;                 /* IN_CHUNK compressed bytes          */
    uint8_t *buf;                   /* decoded bytes                      */
    size_t buf_cap;
    struct slot *table[2];          /* the count table and its next size  */
    size_t table_cap[2];
};

struct parser {
    struct rd_file *f;
    struct rd_ctx *x;
    uint8_t *buf;          /* decoded bytes not yet parsed */
    size_t len, cap;       /* cap: what this file alone would have grown */
    struct slot *counts;       /* (thread, leaf, flags) -> count, open   */
    size_t counts_cap;         /* addressing; a table of x's             */
    const struct rd_sink *sink;    /* rd_stream: samples go here instead */
    /* The window read (rd_window): ticks at or after lo and before hi, on
     * the file's clock; in_window: the last tick was (its extras go with
     * it). */
    uint64_t lo, hi;
    int in_window;
    int seen_header;
    int failed;            /* a problem was recorded: stop */
    /* Highest id defined so far per table: the writer numbers each table
     * 1, 2, 3..., so an id further ahead is damage (and would make the
     * table's allocation follow the file's say-so). */
    uint64_t top_string, top_code, top_node, top_thread;
    /* Reading an image's segments one after another (rd_read_chain): the
     * segment being read (0: the first), what its string, code and node
     * ids are moved up by (every segment numbers its own from 1), and
     * the counters and span of the segments before it (each segment's
     * count from its own start). */
    size_t seg;
    uint64_t base_string, base_code, base_node;
    struct rd_counters counter_base;
    uint64_t span_base;
    const char *seg_path;      /* the segment being read                 */
};

/* An id of this segment's as the joined file numbers it (0 stays 0). */
static inline uint64_t moved(uint64_t v, uint64_t base) { return v ? v + base : 0; }
#define SID(p, v) moved((v), (p)->base_string)
#define CID(p, v) moved((v), (p)->base_code)
#define NID(p, v) moved((v), (p)->base_node)

static void add_counters(struct rd_counters *to, const struct rd_counters *base,
                         const struct rd_counters *k)
{
    to->samples = base->samples + k->samples;
    to->rejected = base->rejected + k->rejected;
    to->missed = base->missed + k->missed;
    to->sampler_cpu_ns = base->sampler_cpu_ns + k->sampler_cpu_ns;
    to->ticks = base->ticks + k->ticks;
    to->tick_ns = base->tick_ns + k->tick_ns;
    to->idle = base->idle + k->idle;
    for (int i = 0; i < 3; i++)
        to->failed_reads[i] = base->failed_reads[i] + k->failed_reads[i];
}

static void problem(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->f->problem = strdup(msg);
    if (p->seg)
        p->f->problem_path = strdup(p->seg_path);
}

/* Whether the file's tables may go from old_bytes to bytes. */
static int within_cap(struct parser *p, size_t old_bytes, size_t bytes)
{
    if (p->f->allocated - old_bytes + bytes > READ_MEM_CAP) {
        problem(p, "too large: tables exceed %u MiB", READ_MEM_CAP >> 20);
        return 0;
    }
    return 1;
}

static void *track(struct parser *p, void *old, size_t old_bytes, size_t bytes)
{
    if (!within_cap(p, old_bytes, bytes))
        return NULL;
    void *n = realloc(old, bytes ? bytes : 1);
    if (!n) {
        problem(p, "out of memory");
        return NULL;
    }
    p->f->allocated = p->f->allocated - old_bytes + bytes;
    return n;
}

/* A buffer of x's that holds at least bytes. */
static void *reserve(struct parser *p, void *buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return buf;
    void *n = realloc(buf, bytes);
    if (!n) {
        problem(p, "out of memory");
        return NULL;
    }
    *cap = bytes;
    return n;
}

/* Grows an id-indexed array so that index id exists.  An id may be one
 * past the highest defined so far (*top), or a redefinition. */
static int grow(struct parser *p, void **arr, size_t *n, size_t elem, uint64_t id,
                uint64_t *top)
{
    if (id == 0 || id > PP_MAX_ID || id > *top + 1) {
        problem(p, "corrupt: id %llu out of range (highest so far %llu)",
                (unsigned long long)id, (unsigned long long)*top);
        return -1;
    }
    if (id > *top)
        *top = id;
    if (id < *n)
        return 0;
    size_t want = *n ? *n : 64;
    while (want <= id)
        want *= 2;
    void *a = track(p, *arr, *n * elem, want * elem);
    if (!a)
        return -1;
    memset((char *)a + *n * elem, 0, (want - *n) * elem);
    *arr = a;
    *n = want;
    return 0;
}

static int defined_string(const struct rd_file *f, uint64_t id)
{
    return id && id < f->nstrings && f->strings[id];
}

struct cur { const uint8_t *p, *end; int bad; };

static inline uint64_t get_v(struct cur *c)
{
    uint64_t v = 0;
    if (pp_get_varint(&c->p, c->end, &v) != 0)
        c->bad = 1;
    return v;
}

static uint8_t get_u8(struct cur *c)
{
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}

static uint64_t get_u64le(struct cur *c)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)get_u8(c) << (8 * i);
    return v;
}

/* bytes from the file's string blocks, charged to its cap as a malloc
 * of their own would be. */
static char *str_alloc(struct parser *p, size_t bytes)
{
    struct rd_block *b = p->f->blocks;
    if (!within_cap(p, 0, bytes))
        return NULL;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = b ? b->cap * 2 : 4096;     /* small files stay small */
        if (cap > STR_BLOCK)
            cap = STR_BLOCK;
        if (cap < bytes)
            cap = bytes;
        b = malloc(sizeof *b + cap);
        if (!b) {
            problem(p, "out of memory");
            return NULL;
        }
        *b = (struct rd_block){ p->f->blocks, 0, cap };
        p->f->blocks = b;
    }
    p->f->allocated += bytes;
    b->used += bytes;
    return b->data + b->used - bytes;
}

/* A string field; NUL-terminated copy (NULL on damage). */
static char *get_str(struct parser *p, struct cur *c)
{
    uint64_t n = get_v(c);
    if (c->bad || n > PP_MAX_STRING || n > (uint64_t)(c->end - c->p)) {
        c->bad = 1;
        return NULL;
    }
    char *s = str_alloc(p, (size_t)n + 1);
    if (!s)
        return NULL;
    memcpy(s, c->p, (size_t)n);
    s[n] = 0;
    c->p += n;
    return s;
}

static void rec_header(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    if ((size_t)(c->end - c->p) < PP_MAGIC_LEN ||
        memcmp(c->p, PP_MAGIC, PP_MAGIC_LEN) != 0) {
        problem(p, "not a pyprof file (no PYPROF header)");
        return;
    }
    c->p += PP_MAGIC_LEN;
    f->format_version = get_v(c);
    if (f->format_version != PP_FORMAT_VERSION && !c->bad) {
        problem(p, "format version %llu is not supported (this reader knows %d)",
                (unsigned long long)f->format_version, PP_FORMAT_VERSION);
        return;
    }
    f->pid = (int64_t)get_v(c);
    f->ppid = (int64_t)get_v(c);
    f->uid = get_u64le(c);
    f->parent_uid = get_u64le(c);
    f->started_by = get_u8(c);
    f->start_ns = get_v(c);
    f->interval_ns = get_v(c);
    uint64_t argc = get_v(c);
    if (c->bad || argc > PP_MAX_ARGV) {
        problem(p, "corrupt: bad header");
        return;
    }
    f->argv = track(p, NULL, 0, (size_t)(argc + 1) * sizeof *f->argv);
    if (!f->argv)
        return;
    for (uint64_t i = 0; i < argc; i++) {
        f->argv[i] = get_str(p, c);
        if (!f->argv[i]) {
            problem(p, "corrupt: bad argv in header");
            return;
        }
        f->argc++;
    }
    f->argv[f->argc] = NULL;
    f->executable = get_str(p, c);
    f->python = get_str(p, c);
    f->hostname = get_str(p, c);
    f->header_flags = get_v(c);
    if (!f->executable || !f->python || !f->hostname || c->bad) {
        problem(p, "corrupt: truncated header record");
        return;
    }
    f->last_tick_ns = f->start_ns;
    f->has_header = 1;
}

/* The header of a segment after the first: the same image's (pid, image
 * id, host), or none of its records are taken.  The joined file keeps
 * the first segment's start; this segment's ticks count from its own. */
static void rec_next_header(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    struct rd_file was = *f;
    f->argv = NULL;
    f->argc = 0;
    rec_header(p, c);
    int same = !p->failed && f->pid == was.pid && f->uid == was.uid &&
               !strcmp(f->hostname, was.hostname);
    if (!same) {
        free(f->argv);
        f->argv = was.argv;
        f->argc = was.argc;
        f->pid = was.pid;
        f->ppid = was.ppid;
        f->uid = was.uid;
        f->parent_uid = was.parent_uid;
        f->started_by = was.started_by;
        f->interval_ns = was.interval_ns;
        f->executable = was.executable;
        f->python = was.python;
        f->hostname = was.hostname;
        f->header_flags = was.header_flags;
        f->start_ns = was.start_ns;
        f->last_tick_ns = was.last_tick_ns;
        if (!p->failed)
            problem(p, "not a segment of the process before it (pid %lld, image %016llx)",
                    (long long)was.pid, (unsigned long long)was.uid);
        return;
    }
    free(was.argv);
    /* Its ticks count from its own start; never back before the last
     * tick read (a wall clock stepped back between the two). */
    if (f->last_tick_ns < was.last_tick_ns)
        f->last_tick_ns = was.last_tick_ns;
    f->start_ns = was.start_ns;
    f->started_by = was.started_by;
}

static inline size_t count_slot(const struct parser *p, uint32_t t,
                                uint32_t leaf, uint8_t flags)
{
    uint64_t h = ((uint64_t)t * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)leaf << 8 | flags);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    size_t j = (size_t)(h ^ (h >> 29)) & (p->counts_cap - 1);
    while (p->counts[j].n &&
           !(p->counts[j].thread == t && p->counts[j].leaf == leaf &&
             (uint8_t)p->counts[j].n == flags))
        j = (j + 1) & (p->counts_cap - 1);
    return j;
}

/* The table doubles into x's other one, slot by slot as it always did:
 * the slot order is the order the model meets stacks in.  It is charged
 * to the file's cap as an array of rd_count, as it always was. */
static int grow_counts(struct parser *p)
{
    struct rd_ctx *x = p->x;
    size_t cap = p->counts_cap ? p->counts_cap * 2 : 256;
    int to = p->counts == x->table[0];
    if (!within_cap(p, 0, cap * sizeof(struct rd_count)))
        return -1;
    struct slot *n = reserve(p, x->table[to], &x->table_cap[to], cap * sizeof *n);
    if (!n)
        return -1;
    x->table[to] = n;
    memset(n, 0, cap * sizeof *n);
    struct slot *old = p->counts;
    size_t oldcap = p->counts_cap;
    p->counts = n;
    p->counts_cap = cap;
    p->f->allocated += (cap - oldcap) * sizeof(struct rd_count);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].n)
            n[count_slot(p, old[i].thread, old[i].leaf, (uint8_t)old[i].n)] = old[i];
    return 0;
}

static int add_count(struct parser *p, uint32_t t, uint32_t leaf, uint8_t flags,
                     uint64_t n)
{
    struct rd_file *f = p->f;
    if ((f->counts_used + 1) * 2 > p->counts_cap && grow_counts(p) != 0)
        return -1;
    size_t j = count_slot(p, t, leaf, flags);
    if (!p->counts[j].n) {
        p->counts[j] = (struct slot){ t, leaf, flags };
        f->counts_used++;
    }
    p->counts[j].n += n << 8;
    /* samples read are the ticks' entries; CPU_EXTRA's are not samples
     * of every mode */
    if (!(flags & PP_SAMPLE_RESERVED))
        f->samples += n;
    return 0;
}

/* The file keeps its counts in slot order, without the empty slots. */
static void keep_counts(struct parser *p)
{
    struct rd_file *f = p->f;
    if (!f->counts_used)
        return;
    f->counts = malloc(f->counts_used * sizeof *f->counts);
    if (!f->counts) {
        problem(p, "out of memory");
        f->counts_used = 0;
        return;
    }
    for (size_t i = 0, k = 0; i < p->counts_cap; i++)
        if (p->counts[i].n)
            f->counts[k++] = (struct rd_count){ p->counts[i].thread, p->counts[i].leaf,
                                                (uint8_t)p->counts[i].n,
                                                p->counts[i].n >> 8 };
    f->counts_cap = f->counts_used;
    f->allocated -= (p->counts_cap - f->counts_used) * sizeof *f->counts;
}

/* Whether thread t and stack leaf (0: no Python frame, where allowed)
 * were defined before a record used them. */
static int defined_use(const struct rd_file *f, uint64_t t, uint64_t leaf, int leaf_zero)
{
    return t && t < f->nthreads && f->threads[t].name &&
           (leaf ? leaf < f->nnodes && f->nodes[leaf].code : leaf_zero);
}

static int hide_c_calls;

void rd_hide_c_calls(int on) { hide_c_calls = on; }

static int is_c_call(const struct rd_file *f, const struct rd_code *k)
{
    return pp_is_c_call(rd_string(f, k->filename), rd_string(f, k->qualname));
}

static void rec_tick(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    uint64_t dt = get_v(c);
    if (c->bad) {
        problem(p, "corrupt: bad tick record");
        return;
    }
    f->last_tick_ns += dt;
    p->in_window = f->last_tick_ns >= p->lo && f->last_tick_ns < p->hi;
    if (p->sink && p->in_window)
        p->sink->tick(p->sink->arg, f, f->last_tick_ns - f->start_ns);
    while (c->p < c->end) {
        uint64_t t = get_v(c), leaf = NID(p, get_v(c));
        /* the reserved bit is the reader's own (CPU_EXTRA below) */
        uint8_t flags = get_u8(c) & (uint8_t)~PP_SAMPLE_RESERVED;
        if (c->bad || !defined_use(f, t, leaf, 1)) {
            problem(p, "corrupt: sample refers to an undefined thread or stack");
            return;
        }
        if (!p->in_window)
            continue;
        if (p->sink) {
            f->samples++;
            p->sink->sample(p->sink->arg, f, (uint32_t)t, (uint32_t)leaf, flags);
        } else if (add_count(p, (uint32_t)t, (uint32_t)leaf, flags, 1) != 0) {
            return;
        }
    }
}

/* Samples of a record after a tick (CPU_EXTRA, TASK_WAIT): counted, or
 * given to the time-ordered reading, after that tick's. */
static int extra_count(struct parser *p, uint64_t t, uint64_t leaf, uint8_t flags,
                       uint64_t count)
{
    if (p->sink) {
        if (p->sink->cpu_extra)
            p->sink->cpu_extra(p->sink->arg, p->f, (uint32_t)t, (uint32_t)leaf, flags, count);
        return 0;
    }
    return add_count(p, (uint32_t)t, (uint32_t)leaf, flags, count);
}

/* CPU-mode samples beyond the last tick's: counted with
 * PP_SAMPLE_RESERVED set, which only CPU mode keeps (model.c). */
static void rec_cpu_extra(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    while (c->p < c->end) {
        uint64_t t = get_v(c), leaf = NID(p, get_v(c));
        uint8_t flags = get_u8(c);
        uint64_t count = get_v(c);
        if (c->bad || !defined_use(f, t, leaf, 0) || !(flags & PP_SAMPLE_ON_CPU) ||
            count == 0 || count > PP_MAX_CPU_EXTRA) {
            problem(p, "corrupt: bad CPU time record");
            return;
        }
        if (!p->in_window)
            continue;
        f->cpu_extra += count;
        if (extra_count(p, t, leaf, flags | PP_SAMPLE_RESERVED, count) != 0)
            return;
    }
}

/* Pending asyncio tasks at the last tick: counted with PP_SAMPLE_TASK_WAIT
 * and PP_SAMPLE_RESERVED set, which the tasks mode alone keeps (model.c);
 * to a time-ordered reading, events after that tick's sample of the
 * thread, as CPU_EXTRA's are. */
static void rec_task_wait(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    while (c->p < c->end) {
        uint64_t t = get_v(c), leaf = NID(p, get_v(c)), count = get_v(c);
        if (c->bad || !defined_use(f, t, leaf, 0) || count == 0 ||
            count > PP_MAX_TASK_WAIT) {
            problem(p, "corrupt: bad pending-task record");
            return;
        }
        if (!p->in_window)
            continue;
        f->task_waits += count;
        if (extra_count(p, t, leaf, PP_SAMPLE_TASK_WAIT | PP_SAMPLE_RESERVED, count) != 0)
            return;
    }
}

static int add_reject(struct parser *p, uint32_t leaf, uint64_t count)
{
    struct rd_file *f = p->f;
    size_t i = 0;
    while (i < f->nrejects && f->rejects[i].leaf != leaf)
        i++;
    if (i == f->nrejects && f->nrejects == RD_MAX_REJECT_LEAVES)
        return add_reject(p, 0, count);
    if (i == f->nrejects) {
        /* Capacity: the powers of two, grown when full. */
        if ((f->nrejects & (f->nrejects - 1)) == 0) {
            size_t cap = f->nrejects ? f->nrejects * 2 : 1;
            void *n = track(p, f->rejects, f->nrejects * sizeof *f->rejects,
                            cap * sizeof *f->rejects);
            if (!n)
                return -1;
            f->rejects = n;
        }
        f->rejects[f->nrejects++] = (struct rd_reject){ leaf, 0 };
    }
    f->rejects[i].count += count;
    return 0;
}

static void rec_rejects(struct parser *p, struct cur *c)
{
    struct rd_file *f = p->f;
    while (c->p < c->end) {
        uint64_t leaf = NID(p, get_v(c)), count = get_v(c);
        if (c->bad || (leaf && (leaf >= f->nnodes || !f->nodes[leaf].code))) {
            problem(p, "corrupt: rejects refer to an undefined stack");
            return;
        }
        if (add_reject(p, (uint32_t)leaf, count) != 0)
            return;
    }
}

static void get_counters(struct cur *c, struct rd_counters *k)
{
    k->samples = get_v(c);
    k->rejected = get_v(c);
    k->missed = get_v(c);
    k->sampler_cpu_ns = get_v(c);
    k->ticks = get_v(c);
    /* Appended later: absent in files from earlier builds. */
    k->tick_ns = c->p < c->end ? get_v(c) : 0;
    k->idle = c->p < c->end ? get_v(c) : 0;
}

/* Appended after the counters of COUNTERS and the span of END. */
static void get_failed_reads(struct cur *c, struct rd_counters *k)
{
    for (int i = 0; i < 3; i++)
        k->failed_reads[i] = c->p < c->end ? get_v(c) : 0;
}

static void record(struct parser *p, int kind, const uint8_t *data, size_t len)
{
    struct rd_file *f = p->f;
    struct cur c = { data, data + len, 0 };
    if (!p->seen_header) {
        if (kind != PP_REC_HEADER) {
            problem(p, "not a pyprof file (first record is not a header)");
            return;
        }
        p->seen_header = 1;
        if (p->seg)
            rec_next_header(p, &c);
        else
            rec_header(p, &c);
        return;
    }
    f->complete = 0;
    switch (kind) {
    case PP_REC_STRING: {
        uint64_t id = SID(p, get_v(&c));
        char *s = get_str(p, &c);
        if (!s || c.bad) {
            problem(p, "corrupt: bad string record");
            return;
        }
        if (grow(p, (void **)&f->strings, &f->nstrings, sizeof *f->strings, id,
                 &p->top_string) != 0)
            return;
        f->strings[id] = s;
        return;
    }
    case PP_REC_CODE: {
        uint64_t id = CID(p, get_v(&c));
        uint64_t qualname = SID(p, get_v(&c)), filename = SID(p, get_v(&c));
        struct rd_code k;
        k.firstlineno = (uint32_t)get_v(&c);
        uint64_t name = SID(p, get_v(&c));
        if (qualname > UINT32_MAX || filename > UINT32_MAX || name > UINT32_MAX)
            c.bad = 1;
        k.qualname = (uint32_t)qualname;
        k.filename = (uint32_t)filename;
        k.name = (uint32_t)name;
        uint64_t boundary = c.p < c.end ? get_v(&c) : 0;
        k.boundary = (uint32_t)boundary;
        /* Names must be strings already defined (name may be absent). */
        if (c.bad || !defined_string(f, k.qualname) || !defined_string(f, k.filename) ||
            (k.name && !defined_string(f, k.name)) ||
            boundary > (uint64_t)RD_MAX_INTERP_ID + 1) {
            problem(p, "corrupt: bad code record");
            return;
        }
        if (grow(p, (void **)&f->codes, &f->ncodes, sizeof *f->codes, id,
                 &p->top_code) != 0)
            return;
        f->codes[id] = k;
        return;
    }
    case PP_REC_NODE: {
        uint64_t id = NID(p, get_v(&c)), parent = NID(p, get_v(&c)),
                 code = CID(p, get_v(&c));
        int64_t line = pp_unzigzag(get_v(&c));
        /* A parent is always defined before its children: no cycles; and
         * no stack deeper than the writer keeps. */
        uint32_t depth = parent && parent < f->nnodes ? f->nodes[parent].depth + 1 : 1;
        if (c.bad || parent >= id || (parent && (parent >= f->nnodes ||
            !f->nodes[parent].code)) || code == 0 || code >= f->ncodes ||
            !f->codes[code].qualname || line < -1 || line > INT32_MAX ||
            depth > PP_MAX_DEPTH) {
            problem(p, "corrupt: bad stack node record");
            return;
        }
        if (grow(p, (void **)&f->nodes, &f->nnodes, sizeof *f->nodes, id,
                 &p->top_node) != 0)
            return;
        f->nodes[id] = (struct rd_node){ (uint32_t)parent, (uint32_t)code,
                                         (int32_t)line, depth };
        /* --hide-c-calls: the node becomes its parent's twin, so that
         * what stands on it stands on its caller. */
        if (hide_c_calls && parent && is_c_call(f, &f->codes[code]))
            f->nodes[id] = f->nodes[parent];
        return;
    }
    case PP_REC_THREAD: {
        uint64_t idx = get_v(&c), tid = get_v(&c);
        char *name = get_str(p, &c);
        /* the OS's name, when the writer knew it to differ */
        char *os_name = name && c.p < c.end ? get_str(p, &c) : NULL;
        if (!name || c.bad) {
            problem(p, "corrupt: bad thread record");
            return;
        }
        if (grow(p, (void **)&f->threads, &f->nthreads, sizeof *f->threads, idx,
                 &p->top_thread) != 0)
            return;
        f->threads[idx] = (struct rd_thread){ (uint32_t)tid, name, os_name };
        return;
    }
    case PP_REC_TICK:
        rec_tick(p, &c);
        return;
    case PP_REC_REJECTS:
        rec_rejects(p, &c);
        return;
    case PP_REC_CPU_EXTRA:
        rec_cpu_extra(p, &c);
        return;
    case PP_REC_TASK_WAIT:
        rec_task_wait(p, &c);
        return;
    case PP_REC_CONTROL: {
        struct rd_control k;
        k.what = get_u8(&c);
        k.window = (uint32_t)get_v(&c);
        k.seq = (uint32_t)get_v(&c);
        k.at_ns = get_v(&c);
        k.text = get_str(p, &c);
        if (c.bad || !k.text || k.what < PP_CONTROL_REC_START ||
            k.what > PP_CONTROL_REC_MARK || strlen(k.text) > PP_MAX_MARK_TEXT) {
            problem(p, "corrupt: bad control record");
            return;
        }
        if (f->ncontrols >= RD_MAX_CONTROLS)
            return;
        /* room for 8, then doubled each time it is full */
        size_t n = f->ncontrols;
        if (!n || (n >= 8 && !(n & (n - 1)))) {
            size_t cap = n ? 2 * n : 8;
            if (!within_cap(p, n * sizeof k, cap * sizeof k))
                return;
            struct rd_control *grown = realloc(f->controls, cap * sizeof k);
            if (!grown) {
                problem(p, "out of memory");
                return;
            }
            f->allocated += (cap - n) * sizeof k;
            f->controls = grown;
        }
        f->controls[f->ncontrols++] = k;
        return;
    }
    case PP_REC_TITLE: {
        /* One buffer, the last title in it: a program may retitle itself
         * at every request. */
        uint64_t n = get_v(&c);
        if (c.bad || n > PP_MAX_TITLE || n != (uint64_t)(c.end - c.p)) {
            problem(p, "corrupt: bad title record");
            return;
        }
        if (!f->title && !(f->title = str_alloc(p, PP_MAX_TITLE + 1)))
            return;
        memcpy(f->title, c.p, (size_t)n);
        f->title[n] = 0;
        return;
    }
    case PP_REC_COUNTERS: {
        struct rd_counters k;
        memset(&k, 0, sizeof k);
        get_counters(&c, &k);
        get_failed_reads(&c, &k);
        if (c.bad) {       /* the last good ones stay */
            problem(p, "corrupt: bad counters record");
            return;
        }
        add_counters(&f->counters, &p->counter_base, &k);
        f->has_counters = 1;
        return;
    }
    case PP_REC_END: {
        struct rd_counters k;
        memset(&k, 0, sizeof k);
        f->end_ns = get_v(&c);
        f->end_how = get_u8(&c);
        f->end_value = pp_unzigzag(get_v(&c));
        get_counters(&c, &k);
        if (c.bad) {
            problem(p, "corrupt: bad end record");
            return;
        }
        /* Appended field, absent in earlier files. */
        if (c.p < c.end) {
            uint64_t span = get_v(&c);
            f->span_ns = c.bad ? 0 : p->span_base + span;
            struct rd_counters r = k;
            get_failed_reads(&c, &r);
            if (!c.bad)
                memcpy(k.failed_reads, r.failed_reads, sizeof k.failed_reads);
        }
        add_counters(&f->counters, &p->counter_base, &k);
        f->has_counters = 1;
        f->complete = 1;
        return;
    }
    case PP_REC_SEGMENT: {
        uint64_t seq = get_v(&c), image_start = get_v(&c), before = get_v(&c);
        if (c.bad || seq > UINT32_MAX || before > PP_MAX_ID) {
            problem(p, "corrupt: bad segment record");
            return;
        }
        if (p->seg && f->segmented && seq <= f->seg_last) {
            problem(p, "not the next segment: number %llu after %u",
                    (unsigned long long)seq, f->seg_last);
            return;
        }
        if (!p->seg) {
            f->seg_first = (uint32_t)seq;
            f->image_start_ns = image_start;
        }
        f->segmented = 1;
        f->seg_last = (uint32_t)seq;
        /* the image's threads keep their indexes from segment to segment */
        if (before > p->top_thread)
            p->top_thread = before;
        return;
    }
    default:
        return;    /* a later format's record: skipped by its length */
    }
}

/* Parses every whole record in p->buf; keeps the incomplete tail. */
static void parse(struct parser *p)
{
    size_t off = 0;
    while (!p->failed && off < p->len) {
        const uint8_t *q = p->buf + off + 1, *end = p->buf + p->len;
        uint64_t len;
        if (pp_get_varint(&q, end, &len) != 0) {
            if (end - q >= 10)
                problem(p, "corrupt: bad record length");
            break;                       /* length not complete yet */
        }
        if (len > PP_MAX_RECORD) {
            problem(p, "corrupt: record of %llu bytes", (unsigned long long)len);
            break;
        }
        if ((uint64_t)(end - q) < len)
            break;
        record(p, p->buf[off], q, (size_t)len);
        off = (size_t)(q + len - p->buf);
    }
    memmove(p->buf, p->buf + off, p->len - off);
    p->len -= off;
}

static struct rd_file *start(struct parser *p, struct rd_ctx *x, const char *path)
{
    struct rd_file *f = calloc(1, sizeof *f);
    if (f)
        f->path = strdup(path);
    *p = (struct parser){ .f = f, .x = x, .hi = UINT64_MAX };
    return f;
}

/* x's zstd context, as a new one would be, and an input buffer if one is
 * needed; 0, or -1 with the problem recorded. */
static int ready(struct parser *p, int chunk)
{
    struct rd_ctx *x = p->x;
    if (!x->z)
        x->z = ZSTD_createDCtx();
    else
        ZSTD_DCtx_reset(x->z, ZSTD_reset_session_only);
    if (chunk && !x->chunk)
        x->chunk = malloc(IN_CHUNK);
    if (!x->z || (chunk && !x->chunk)) {
        problem(p, "out of memory");
        return -1;
    }
    return 0;
}

/* Feeds compressed bytes; returns ZSTD's hint (0 = frame complete). */
static size_t feed(struct parser *p, const uint8_t *in, size_t n, size_t *hint)
{
    ZSTD_inBuffer ib = { in, n, 0 };
    /* Until the input is used up and zstd had room to spare: with the
     * output full it may still hold decoded bytes, which at the end of a
     * cut file are the last samples flushed before the cut. */
    while (!p->failed) {
        if (p->cap - p->len < ZSTD_DStreamOutSize()) {
            size_t cap = p->cap ? p->cap * 2 : 2 * ZSTD_DStreamOutSize();
            if (cap > 2 * (PP_MAX_RECORD + ZSTD_DStreamOutSize()) && p->len > PP_MAX_RECORD) {
                problem(p, "corrupt: record larger than the format allows");
                break;
            }
            uint8_t *b = reserve(p, p->x->buf, &p->x->buf_cap, cap);
            if (!b)
                break;
            p->buf = p->x->buf = b;
            p->cap = cap;
        }
        ZSTD_outBuffer ob = { p->buf + p->len, p->cap - p->len, 0 };
        size_t r = ZSTD_decompressStream(p->x->z, &ob, &ib);
        p->len += ob.pos;
        if (ZSTD_isError(r)) {
            parse(p);
            problem(p, "corrupt: %s", ZSTD_getErrorName(r));
            break;
        }
        *hint = r;
        parse(p);
        if (ib.pos == ib.size && ob.pos < ob.size)
            break;
    }
    return ib.pos;
}

/* What the end of one file's bytes says of it. */
static void file_ends(struct parser *p, size_t hint, int any_input)
{
    if (!p->failed) {
        if (!any_input)
            problem(p, "empty file");
        else if (hint != 0 || p->len)
            problem(p, "truncated: the file ends inside a compressed block or record");
        else if (!p->seen_header)
            problem(p, "not a pyprof file (no records)");
    }
}

static void finish(struct parser *p, size_t hint, int any_input)
{
    file_ends(p, hint, any_input);
    keep_counts(p);
}

static int zstd_magic(const uint8_t *b, size_t n)
{
    return n >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD;
}

struct rd_ctx *rd_ctx_new(void)
{
    return calloc(1, sizeof(struct rd_ctx));
}

void rd_ctx_free(struct rd_ctx *x)
{
    if (!x)
        return;
    ZSTD_freeDCtx(x->z);
    free(x->chunk);
    free(x->buf);
    free(x->table[0]);
    free(x->table[1]);
    free(x);
}

struct rd_file *rd_read_mem(const char *name, const uint8_t *data, size_t len)
{
    struct rd_ctx *x = rd_ctx_new();
    struct parser p;
    struct rd_file *f = x ? start(&p, x, name) : NULL;
    if (!f) {
        rd_ctx_free(x);
        return NULL;
    }
    size_t hint = 0;
    if (len && !zstd_magic(data, len))
        problem(&p, "not a pyprof file (not zstd-compressed)");
    else if (ready(&p, 0) == 0)
        feed(&p, data, len, &hint);
    finish(&p, hint, len > 0);
    rd_ctx_free(x);
    return f;
}

/* Up to n bytes, fewer only at the end of the file (as fread would). */
static ssize_t read_full(int fd, uint8_t *b, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return got ? (ssize_t)got : -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Whether path is named as a time segment (pyprof/file_name.h). */
static int segment_name(const char *path)
{
    const char *base = strrchr(path, '/');
    struct pp_file_name fn;
    return pp_file_name_parse(base ? base + 1 : path, &fn) && fn.segment;
}

/* Reads the file at path into p: the whole profile, or one segment of
 * a chain.  Returns 1, having read nothing, for a segment that is gone:
 * a bounded run deletes its oldest (pyprof-run(1), BOUNDED DISK), and one
 * deleted after it was listed is no damage. */
static int read_one(struct parser *p, const char *path)
{
    struct rd_ctx *x = p->x;
    p->seg_path = path;
    /* O_NONBLOCK: a FIFO named *.zst must not hang the merge. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT && segment_name(path))
        return 1;
    if (fd < 0) {
        problem(p, "cannot open: %s", strerror(errno));
        return 0;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        problem(p, "not a regular file");
        close(fd);
        return 0;
    }
    size_t hint = 0, total = 0;
    ready(p, 1);
    while (!p->failed) {
        ssize_t n = read_full(fd, x->chunk, IN_CHUNK);
        if (n <= 0) {
            if (n < 0)
                problem(p, "read error: %s", strerror(errno));
            break;
        }
        if (total == 0 && !zstd_magic(x->chunk, (size_t)n)) {
            problem(p, "not a pyprof file (not zstd-compressed)");
            break;
        }
        total += (size_t)n;
        feed(p, x->chunk, (size_t)n, &hint);
    }
    file_ends(p, hint, total > 0);
    close(fd);
    return 0;
}

/* The parser, between two segments of a chain: the next one's ids come
 * after every id read so far, its counters and span after theirs.  A
 * damaged segment keeps what was read of it, and the next one is read
 * all the same. */
static void next_segment(struct parser *p)
{
    struct rd_file *f = p->f;
    p->seg++;
    p->seen_header = 0;
    p->failed = 0;
    p->len = 0;
    p->base_string = p->top_string;
    p->base_code = p->top_code;
    p->base_node = p->top_node;
    p->counter_base = f->counters;
    p->span_base = f->span_ns;
    f->complete = 0;
}

static struct rd_file *read_chain(struct rd_ctx *x, char *const *paths, size_t n,
                                  const struct rd_sink *sink,
                                  const struct rd_window *w)
{
    struct parser p;
    struct rd_file *f = start(&p, x, paths[0]);
    if (!f)
        return NULL;
    p.sink = sink;
    if (w) {
        p.lo = w->lo;
        p.hi = w->hi;
    }
    if (n > 1) {
        f->seg_paths = calloc(n + 1, sizeof *f->seg_paths);   /* NULL-ended */
        for (size_t i = 0; f->seg_paths && i < n; i++)
            if (!(f->seg_paths[i] = strdup(paths[i])))
                break;
    }
    for (size_t i = 0, begun = 0; i < n; i++) {
        int was_complete = f->complete;
        if (begun) {
            /* a first segment without a header: nothing to join to */
            if (!f->has_header)
                break;
            next_segment(&p);
        }
        if (read_one(&p, paths[i]) != 0) {
            /* gone: the next one read is the first, or follows the last */
            f->complete = was_complete;
            continue;
        }
        char *named = !begun && i ? strdup(paths[i]) : NULL;
        if (named) {
            free((char *)f->path);
            f->path = named;
        }
        begun = 1;
        f->nsegs++;
    }
    keep_counts(&p);
    return f;
}

static struct rd_file *read_path(struct rd_ctx *x, const char *path,
                                 const struct rd_sink *sink,
                                 const struct rd_window *w)
{
    char *const one[] = { (char *)path };
    return read_chain(x, one, 1, sink, w);
}

struct rd_file *rd_read_chain(struct rd_ctx *x, char *const *paths, size_t n,
                              const struct rd_window *w)
{
    return read_chain(x, paths, n, NULL, w);
}

struct rd_file *rd_stream_chain(char *const *paths, size_t n, const struct rd_sink *sink,
                                const struct rd_window *w)
{
    struct rd_ctx *x = rd_ctx_new();
    struct rd_file *f = x ? read_chain(x, paths, n, sink, w) : NULL;
    rd_ctx_free(x);
    return f;
}

struct rd_file *rd_read_with(struct rd_ctx *x, const char *path)
{
    return read_path(x, path, NULL, NULL);
}

struct rd_file *rd_read_window(struct rd_ctx *x, const char *path,
                               const struct rd_window *w)
{
    return read_path(x, path, NULL, w);
}

struct rd_file *rd_stream(const char *path, const struct rd_sink *sink)
{
    return rd_stream_window(path, sink, NULL);
}

struct rd_file *rd_stream_window(const char *path, const struct rd_sink *sink,
                                 const struct rd_window *w)
{
    struct rd_ctx *x = rd_ctx_new();
    struct rd_file *f = x ? read_path(x, path, sink, w) : NULL;
    rd_ctx_free(x);
    return f;
}

struct rd_follow {
    struct parser p;
    struct rd_ctx *x;
    int fd;
    size_t hint, total;
};

struct rd_follow *rd_follow_open(const char *path, const struct rd_sink *sink)
{
    struct rd_follow *fw = calloc(1, sizeof *fw);
    if (!fw || !(fw->x = rd_ctx_new()) || !start(&fw->p, fw->x, path)) {
        if (fw)
            rd_ctx_free(fw->x);
        free(fw);
        return NULL;
    }
    fw->p.sink = sink;
    fw->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fw->fd < 0)
        problem(&fw->p, "cannot open: %s", strerror(errno));
    else if (fstat(fw->fd, &st) != 0 || !S_ISREG(st.st_mode))
        problem(&fw->p, "not a regular file");
    else
        ready(&fw->p, 1);
    return fw;
}

int rd_follow_poll(struct rd_follow *fw)
{
    struct parser *p = &fw->p;
    int any = 0;
    while (!p->failed && fw->fd >= 0) {
        ssize_t n = read_full(fw->fd, fw->x->chunk, IN_CHUNK);
        if (n < 0)
            problem(p, "read error: %s", strerror(errno));
        if (n <= 0)
            break;
        if (fw->total == 0 && n < 4) {
            /* the first bytes of a file being created: wait for the rest */
            lseek(fw->fd, 0, SEEK_SET);
            break;
        }
        if (fw->total == 0 && !zstd_magic(fw->x->chunk, (size_t)n))
            problem(p, "not a pyprof file (not zstd-compressed)");
        fw->total += (size_t)n;
        feed(p, fw->x->chunk, (size_t)n, &fw->hint);
        any = 1;
    }
    return p->failed ? -1 : any;
}

const struct rd_file *rd_follow_file(const struct rd_follow *fw) { return fw->p.f; }

struct rd_file *rd_follow_close(struct rd_follow *fw)
{
    if (!fw)
        return NULL;
    struct rd_file *f = fw->p.f;
    finish(&fw->p, fw->hint, fw->total > 0);
    if (fw->fd >= 0)
        close(fw->fd);
    rd_ctx_free(fw->x);
    free(fw);
    return f;
}

struct rd_file *rd_read(const char *path)
{
    struct rd_ctx *x = rd_ctx_new();
    struct rd_file *f = x ? rd_read_with(x, path) : NULL;
    rd_ctx_free(x);
    return f;
}

const char *rd_string(const struct rd_file *f, uint32_t id)
{
    return id && id < f->nstrings && f->strings[id] ? f->strings[id] : "";
}

void rd_free(struct rd_file *f)
{
    if (!f)
        return;
    while (f->blocks) {
        struct rd_block *b = f->blocks;
        f->blocks = b->next;
        free(b);
    }
    free(f->argv);
    free(f->strings);
    free(f->codes);
    free(f->nodes);
    free(f->threads);
    free(f->counts);
    free(f->rejects);
    free(f->controls);
    free(f->problem);
    free(f->problem_path);
    for (size_t i = 0; f->seg_paths && f->seg_paths[i]; i++)
        free(f->seg_paths[i]);
    free(f->seg_paths);
    free((char *)f->path);
    free(f);
}
