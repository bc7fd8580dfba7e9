/*
 * writer.c — records into a raw buffer, the raw buffer through zstd into
 * the file.  Stacks are written as a trie (PP_REC_NODE): a sample costs a
 * thread index, a leaf id and a flags byte, and a new stack costs only the
 * frames no earlier stack had.  Each thread's previous root-to-leaf path is
 * kept so that frames the reader reports as unchanged (same_outer) are not
 * looked up again: deep, mostly static stacks cost what their changed top
 * costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/hash.h"
#include "python/codecache.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/image_mem.h"
#include "base/log.h"
#include "record/not_profiled.h"
#include "base/own_fd.h"
#include "pyprof/file_name.h"
#include "pyprof/format.h"
#include "python/pyvm.h"
#include "base/identity.h"
#include "record/writer.h"
#include "record/zstd_lazy.h"

#define RAW_CAP    (256u << 10)
#define RAW_SPILL  (192u << 10)   /* compress once this much is pending   */
#define TICK_CAP   (PP_MAX_RECORD)
/* Level 2 with small tables: its search state is 48 KiB (level 3's
 * defaults, 768 KiB, cost every process about 190 page faults when it
 * starts, and every fork child as many copies), and on pyprof's streams
 * it writes 16-17 % fewer bytes on threads than level 3 did and 6 % more
 * on a deep recursion at 10 kHz (pyprof(7), "Timing and cost"). */
#define ZSTD_LEVEL 2
#define ZSTD_WLOG  17             /* 128 KiB window                       */
#define ZSTD_HLOG  13
#define ZSTD_CLOG  12

/* Open-addressing hash of (parent, code, line) -> node id. */
struct node_slot { uint32_t parent, code; int32_t line; uint32_t id; };
/* Content hash of strings -> string id; keys live in an arena. */
struct str_slot { uint64_t hash; const char *s; uint32_t len, id; };
/* Per-thread previous path, outermost first; only for the file of
 * generation gen (an older one's is empty). */
struct path { uint32_t *node; unsigned len, cap; uint32_t seq, gen; };

static void reset_tables(void);
static void clean_tables(void);

static struct {
    int fd;                         /* open between writes: see out_fd()  */
    int held;                       /* writer_hold_fd: kept until let go  */
    int have_file;                  /* begun: path set; dev and ino too,
                                       unless uncreated                  */
    int uncreated;                  /* not created yet (defer_create)     */
    dev_t dev; ino_t ino;           /* the file we created                */
    ZSTD_CCtx *cctx;
    uint8_t *raw; size_t raw_len;
    uint8_t *out; size_t out_cap;
    uint8_t *tick; size_t tick_len;
    uint64_t last_tick_ns;
    uint64_t start_mono;        /* the file's start on CLOCK_MONOTONIC     */
    uint64_t start_real;        /* and on CLOCK_REALTIME (its header's)   */
    uint64_t bytes;
    uint32_t gen;                   /* bumps per file: code_info.file_gen */
    uint32_t next_string, next_code, next_node;
    struct node_slot *nodes; size_t nodes_cap, nodes_used;
    struct str_slot *strs; size_t strs_cap, strs_used;
    char *arena; size_t arena_left;
    struct path *paths; size_t npaths;
    int tables_stale;               /* emptied in name only: clean_tables */
    int frame_started;              /* zstd holds part of an open frame   */
    int cctx_stale;                 /* reset before the file's first frame */
    int cctx_wiped;                 /* a fork child's: in zeroed memory,
                                       made again before its first use   */
    int broken;                     /* stop writing after an I/O failure   */
    /* Why and when writing stopped (stop_err 0: it did not), and the
     * ticks in the file as of its last good flush (pp_stopped_writing). */
    int stop_err;
    uint64_t stop_ns, ticks_kept;
} w PP_CHILD_WRITES = { .fd = -1 };

/* The file's path and why writing stopped: out of w, which a fork child
 * writes (base/child_writes.h). */
static char w_path[PATH_MAX];
static char w_stop_reason[PATH_MAX + 160];

/* ------------------------------------------------------------ output */

/* Whether w.fd may stay open after a write: in the sampler's private fd
 * table, or on any thread for the span of a hold (writer_hold_fd). */
static int keeps_fd(void)
{
    return own_fd_keep() || w.held;
}

/* The file, open for one write: kept open only in the sampler's private
 * fd table (own_fd.h), or while held, else opened by path for each write
 * and closed after it, so that the program's fd table holds nothing of
 * ours between writes.  A file at that path that is not the one we
 * created is never written. */
static int out_fd(void)
{
    if (w.fd >= 0 && keeps_fd() && own_fd_is(w.fd, w.dev, w.ino))
        return w.fd;
    int fd = open(w_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (!own_fd_is(fd, w.dev, w.ino)) {
        close(fd);
        return -1;
    }
    if (keeps_fd())
        w.fd = fd;
    return fd;
}

/* Writing has failed for good: said now, without PYPROF_LOG, to whoever
 * collects the tree's records, and again with the ticks lost when the
 * image ends (writer_end). */
static void stop_writing(int err, const char *why)
{
    w.broken = 1;
    w.stop_err = err;
    w.stop_ns = pp_clock_ns(CLOCK_REALTIME);
    snprintf(w_stop_reason, sizeof w_stop_reason, "stopped writing %s: %s", w_path, why);
    pp_warn("%s; sampling goes on unrecorded", w_stop_reason);
    pp_stopped_writing(w_stop_reason, err, w.stop_ns, -1);
}

static void write_all(const uint8_t *p, size_t n)
{
    if (w.broken || !n)
        return;
    if (w.uncreated && writer_create() != 0)
        return;
    int fd = out_fd();
    int kept = fd >= 0 && fd == w.fd && keeps_fd();
    if (fd < 0) {
        stop_writing(errno ? errno : ENOENT, "the file is gone or was replaced");
        return;
    }
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            /* 0 from a regular file: nothing more fits. */
            int err = k < 0 ? errno : ENOSPC;
            stop_writing(err, strerror(err));
            break;
        }
        p += k;
        n -= (size_t)k;
        w.bytes += (uint64_t)k;
    }
    if (!kept)
        close(fd);
}

static ZSTD_CCtx *make_cctx(void);

static void compress(ZSTD_EndDirective mode)
{
    if (w.cctx_wiped) {
        w.cctx_wiped = 0;
        if (!(w.cctx = make_cctx())) {
            pp_warn("zstd: cannot set up the compressor again");
            w.broken = 1;
            w.raw_len = 0;
            return;
        }
        w.cctx_stale = 0;
    }
    if (w.cctx_stale) {
        zstd_lazy.CCtx_reset(w.cctx, ZSTD_reset_session_only);
        w.cctx_stale = 0;
    }
    ZSTD_inBuffer in = { w.raw, w.raw_len, 0 };
    size_t left;
    do {
        ZSTD_outBuffer out = { w.out, w.out_cap, 0 };
        left = zstd_lazy.compressStream2(w.cctx, &out, &in, mode);
        if (zstd_lazy.isError(left)) {
            pp_warn("zstd: %s", zstd_lazy.getErrorName(left));
            w.broken = 1;
            break;
        }
        write_all(w.out, out.pos);
    } while (mode == ZSTD_e_continue ? in.pos < in.size : left != 0);
    w.frame_started = mode != ZSTD_e_end;
    w.raw_len = 0;
}

/* Ends the file's last frame when zstd has none open: the pending bytes
 * go out as one frame of stored blocks, and the compressor is never
 * touched.  A fork child that ends before its first tick writes only a
 * header and an END; compressing them would copy the parent's compressor
 * state page by page (pyprof(7), "Timing and cost"). */
#define STORED_BLOCK_MAX (128u << 10)

static int end_stored(void)
{
    if (w.frame_started || w.raw_len > RAW_SPILL ||
        w.out_cap < 12 + STORED_BLOCK_MAX)
        return 0;
    /* Magic; a single-segment frame with a 4-byte content size and no
     * checksum (RFC 8878, 3.1.1.1); then the blocks, each with its 3-byte
     * header, assembled in the compressor's output buffer so that a small
     * file is one write. */
    static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    memcpy(w.out, magic, 4);
    w.out[4] = 0xa0;
    for (int i = 0; i < 4; i++)
        w.out[5 + i] = (uint8_t)(w.raw_len >> (8 * i));
    size_t o = 9, done = 0;
    do {
        size_t n = w.raw_len - done;
        if (n > STORED_BLOCK_MAX)
            n = STORED_BLOCK_MAX;
        uint32_t bh = (uint32_t)n << 3 | (done + n == w.raw_len);
        w.out[o++] = (uint8_t)bh;
        w.out[o++] = (uint8_t)(bh >> 8);
        w.out[o++] = (uint8_t)(bh >> 16);
        memcpy(w.out + o, w.raw + done, n);
        write_all(w.out, o + n);
        o = 0;
        done += n;
    } while (done < w.raw_len);
    w.raw_len = 0;
    return 1;
}

/* ------------------------------------------------------------ records */

/* Appends one record; payload at most PP_MAX_RECORD bytes. */
static void record(int kind, const uint8_t *payload, size_t len)
{
    if (len > PP_MAX_RECORD)
        return;
    if (len + 11 > RAW_CAP - w.raw_len)
        compress(ZSTD_e_continue);
    uint8_t *p = w.raw + w.raw_len;
    size_t n = 0;
    p[n++] = (uint8_t)kind;
    n += pp_put_varint(p + n, len);
    w.raw_len += n;
    if (len > RAW_CAP - w.raw_len) {        /* huge record: stream it */
        compress(ZSTD_e_continue);
        ZSTD_inBuffer in = { payload, len, 0 };
        while (in.pos < in.size && !w.broken) {
            ZSTD_outBuffer out = { w.out, w.out_cap, 0 };
            size_t r = zstd_lazy.compressStream2(w.cctx, &out, &in, ZSTD_e_continue);
            if (zstd_lazy.isError(r)) { w.broken = 1; break; }
            write_all(w.out, out.pos);
        }
        return;
    }
    memcpy(w.raw + w.raw_len, payload, len);
    w.raw_len += len;
    if (w.raw_len > RAW_SPILL)
        compress(ZSTD_e_continue);
}

/* A small payload builder on the stack. */
struct buf { uint8_t *p; size_t len, cap; };

static void put_varint(struct buf *b, uint64_t v)
{
    if (b->len + 10 <= b->cap)
        b->len += pp_put_varint(b->p + b->len, v);
    else
        b->len = b->cap + 1;          /* overflow marker: record dropped */
}

static void put_bytes(struct buf *b, const void *s, size_t n)
{
    put_varint(b, n);
    if (b->len + n <= b->cap) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    } else {
        b->len = b->cap + 1;
    }
}

static void put_str(struct buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > PP_MAX_STRING)
        n = PP_MAX_STRING;
    put_bytes(b, s ? s : "", n);
}

static void put_u64le(struct buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        if (b->len < b->cap)
            b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void emit(int kind, struct buf *b)
{
    if (b->len <= b->cap)
        record(kind, b->p, b->len);
}

/* ------------------------------------------------------------ tables */

static const char *arena_copy(const char *s, size_t n)
{
    if (n + 1 > w.arena_left) {
        size_t sz = n + 1 > 65536 ? n + 1 : 65536;
        w.arena = malloc(sz);        /* chunks live as long as the file */
        if (!w.arena) { w.arena_left = 0; return NULL; }
        w.arena_left = sz;
    }
    char *d = w.arena;
    memcpy(d, s, n);
    d[n] = 0;
    w.arena += n + 1;
    w.arena_left -= n + 1;
    return d;
}

/* Doubles an open-addressing table of elem-byte slots, re-placing every
 * slot that hash() says is used (hash 0 = empty). */
static int grow_table(void **table, size_t *cap, size_t elem, size_t first,
                      uint64_t (*hash)(const void *slot))
{
    size_t ncap = *cap ? *cap * 2 : first;
    /* A fork child gets them empty without a write (image_mem.h). */
    char *t = image_mem_alloc(ncap * elem);
    if (!t)
        return -1;
    for (size_t i = 0; i < *cap; i++) {
        const char *o = (const char *)*table + i * elem;
        uint64_t h = hash(o);
        if (!h)
            continue;
        size_t j = h & (ncap - 1);
        while (hash(t + j * elem))
            j = (j + 1) & (ncap - 1);
        memcpy(t + j * elem, o, elem);
    }
    image_mem_free(*table, *cap * elem);
    *table = t;
    *cap = ncap;
    return 0;
}

static uint64_t str_slot_hash(const void *slot)
{
    return ((const struct str_slot *)slot)->hash;
}

static int grow_strs(void)
{
    return grow_table((void **)&w.strs, &w.strs_cap, sizeof *w.strs, 1024,
                      str_slot_hash);
}

static uint32_t string_id(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (n > PP_MAX_STRING)
        n = PP_MAX_STRING;
    if ((w.strs_used + 1) * 2 > w.strs_cap && grow_strs() != 0)
        return 0;
    uint64_t h = pp_hash_bytes(s, n);
    size_t j = h & (w.strs_cap - 1);
    for (; w.strs[j].hash; j = (j + 1) & (w.strs_cap - 1))
        if (w.strs[j].hash == h && w.strs[j].len == n &&
            memcmp(w.strs[j].s, s, n) == 0)
            return w.strs[j].id;
    const char *copy = arena_copy(s, n);
    if (!copy)
        return 0;
    uint32_t id = ++w.next_string;
    w.strs[j] = (struct str_slot){ h, copy, (uint32_t)n, id };
    w.strs_used++;

    uint8_t tmp[PP_MAX_STRING + 32];
    struct buf b = { tmp, 0, sizeof tmp };
    put_varint(&b, id);
    put_bytes(&b, s, n);
    emit(PP_REC_STRING, &b);
    return id;
}

static uint32_t code_id(struct code_info *c)
{
    if (c->file_gen == w.gen && c->file_id)
        return c->file_id;
    uint32_t q = string_id(c->qualname), f = string_id(c->filename),
             n = string_id(c->name);
    uint32_t id = ++w.next_code;
    uint8_t tmp[64];
    struct buf b = { tmp, 0, sizeof tmp };
    put_varint(&b, id);
    put_varint(&b, q);
    put_varint(&b, f);
    put_varint(&b, (uint64_t)(c->firstlineno > 0 ? c->firstlineno : 0));
    put_varint(&b, n);
    if (c->boundary)
        put_varint(&b, c->boundary);
    emit(PP_REC_CODE, &b);
    c->file_id = id;
    c->file_gen = w.gen;
    return id;
}

static inline size_t node_hash(uint32_t parent, uint32_t code, int32_t line)
{
    uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15ULL) ^
                 ((uint64_t)code << 32 | (uint32_t)line);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (size_t)(h ^ (h >> 32));
}

static uint64_t node_slot_hash(const void *slot)
{
    const struct node_slot *n = slot;
    return n->id ? (node_hash(n->parent, n->code, n->line) | 1) : 0;
}

static int grow_nodes(void)
{
    return grow_table((void **)&w.nodes, &w.nodes_cap, sizeof *w.nodes, 4096,
                      node_slot_hash);
}

static uint32_t node_id(uint32_t parent, uint32_t code, int32_t line)
{
    /* No line is below -1 (unknown) in a file (pyprof(5)); a reader
     * stops at such a node.  Real code has none, but a line decoded from
     * a code object caught half-built is anything. */
    if (line < -1)
        line = -1;
    if ((w.nodes_used + 1) * 2 > w.nodes_cap && grow_nodes() != 0)
        return 0;
    size_t j = (node_hash(parent, code, line) | 1) & (w.nodes_cap - 1);
    for (; w.nodes[j].id; j = (j + 1) & (w.nodes_cap - 1))
        if (w.nodes[j].parent == parent && w.nodes[j].code == code &&
            w.nodes[j].line == line)
            return w.nodes[j].id;
    uint32_t id = ++w.next_node;
    w.nodes[j] = (struct node_slot){ parent, code, line, id };
    w.nodes_used++;

    uint8_t tmp[40];
    struct buf b = { tmp, 0, sizeof tmp };
    put_varint(&b, id);
    put_varint(&b, parent);
    put_varint(&b, code);
    put_varint(&b, pp_zigzag(line));
    emit(PP_REC_NODE, &b);
    return id;
}

static struct path *thread_path(uint32_t idx)
{
    if (idx >= w.npaths) {
        size_t n = idx + 64;
        struct path *p = realloc(w.paths, n * sizeof *p);
        if (!p)
            return NULL;
        memset(p + w.npaths, 0, (n - w.npaths) * sizeof *p);
        w.paths = p;
        w.npaths = n;
    }
    return &w.paths[idx];
}

/* Leaf node of t's stack, reusing the thread's previous path for the
 * outermost frames the reader says are unchanged. */
static uint32_t stack_leaf(uint32_t thread_idx, const struct pyvm_thread *t)
{
    struct path *p = thread_path(thread_idx);
    if (!p)
        return 0;
    if (p->gen != w.gen) {
        p->len = 0;
        p->seq = 0;
        p->gen = w.gen;
    }
    if (p->cap < t->depth) {
        uint32_t *n = realloc(p->node, t->depth * sizeof *n);
        if (!n)
            return 0;
        p->node = n;
        p->cap = t->depth;
    }
    /* Reuse only what was derived from the very sample same_outer refers
     * to: a sample this writer did not record breaks the chain. */
    unsigned keep = t->prev_seq && t->prev_seq == p->seq &&
                    t->same_outer <= p->len ? t->same_outer : 0;
    p->seq = t->seq;
    uint32_t parent = keep ? p->node[keep - 1] : 0;
    for (unsigned i = keep; i < t->depth; i++) {
        const struct pyvm_frame *f = &t->frames[t->depth - 1 - i];
        parent = node_id(parent, code_id(f->code), f->line);
        if (!parent) {
            p->len = 0;
            p->seq = 0;
            return 0;
        }
        p->node[i] = parent;
    }
    p->len = t->depth;
    return parent;
}

/* ------------------------------------------------------------ API */

static int make_dirs(const char *dir)
{
    char tmp[PATH_MAX];
    if (strlen(dir) >= sizeof tmp)
        return -1;
    strcpy(tmp, dir);
    for (char *s = tmp + 1; ; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            *s = c;
            if (!c)
                break;
        }
    }
    return 0;
}

static int isalnum_ascii(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

/* <prog>.<pid>.<uid>.zst with prog reduced to a safe file-name part; a
 * segment's is <prog>.<pid>.<uid>.<seq>.zst (include/pyprof/file_name.h). */
static void file_name(char *dst, size_t cap, const char *argv0,
                      const struct writer_image *img)
{
    const char *base = argv0 ? strrchr(argv0, '/') : NULL;
    base = base ? base + 1 : argv0 ? argv0 : "proc";
    char prog[33];
    size_t n = 0;
    for (; *base && n < sizeof prog - 1; base++)
        prog[n++] = (isalnum_ascii(*base) || *base == '.' || *base == '-' ||
                     *base == '_') ? *base : '_';
    prog[n] = 0;
    /* Too long: empty, and open("") fails with ENOENT and is reported. */
    pp_file_name_format(dst, cap, pp_out_dir(), n ? prog : "proc",
                        (long)pp_state.pid, pp_state.uid, img->segmented,
                        img->seq);
}

/* The compressor's memory: an image_mem mapping (wiped in a fork child)
 * where libzstd can place it, so that fork neither copies the parent's
 * tables and window into every child's page tables nor leaves them for
 * each child's end to unmap, while a child that ends before its first
 * flush never uses them (its file is one stored frame: end_stored).  A
 * child that compresses makes it again in that memory, which needs no
 * allocation (compress).  Elsewhere zstd's own allocation, copied as
 * any memory is. */
static void *cctx_mem;
static size_t cctx_mem_size;
static int cctx_static;             /* w.cctx lives in cctx_mem */

static ZSTD_CCtx *make_cctx(void)
{
    ZSTD_CCtx *c = NULL;
    if (zstd_lazy.initStaticCCtx && zstd_lazy.getCParams &&
        zstd_lazy.estimateCStreamSize_usingCParams) {
        if (!cctx_mem) {
            ZSTD_compressionParameters cp = zstd_lazy.getCParams(ZSTD_LEVEL, 0, 0);
            cp.windowLog = ZSTD_WLOG;
            cp.hashLog = ZSTD_HLOG;
            cp.chainLog = ZSTD_CLOG;
            size_t n = zstd_lazy.estimateCStreamSize_usingCParams(cp);
            cctx_mem = n ? image_mem_alloc(n) : NULL;
            cctx_mem_size = cctx_mem ? n : 0;
        }
        if (cctx_mem)
            c = zstd_lazy.initStaticCCtx(cctx_mem, cctx_mem_size);
    }
    cctx_static = c != NULL;
    if (!c)
        c = zstd_lazy.createCCtx();
    if (c) {
        zstd_lazy.CCtx_setParameter(c, ZSTD_c_compressionLevel, ZSTD_LEVEL);
        zstd_lazy.CCtx_setParameter(c, ZSTD_c_windowLog, ZSTD_WLOG);
        zstd_lazy.CCtx_setParameter(c, ZSTD_c_hashLog, ZSTD_HLOG);
        zstd_lazy.CCtx_setParameter(c, ZSTD_c_chainLog, ZSTD_CLOG);
        zstd_lazy.CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    }
    return c;
}

/* The compressor and the buffers, made once; each is kept when made, so a
 * failed attempt is finished by the next one.  libzstd is loaded by the
 * callers (zstd_lazy_init says why it could not be). */
static int alloc_buffers(void)
{
    if (!w.cctx)
        w.cctx = make_cctx();
    /* Written at every tick and flush: kept out of a fork child's copy
     * (image_mem.h), which starts with none of their bytes anyway. */
    if (!w.raw)
        w.raw = image_mem_alloc(RAW_CAP);
    if (!w.out) {
        w.out_cap = zstd_lazy.CStreamOutSize();
        w.out = image_mem_alloc(w.out_cap);
    }
    if (!w.tick)
        w.tick = image_mem_alloc(TICK_CAP);
    return w.cctx && w.raw && w.out && w.tick ? 0 : -1;
}

int writer_ready(void)
{
    return w.cctx && w.raw && w.out && w.tick;
}

int writer_init(void)
{
    int had = w.cctx != NULL;       /* a fork child's is ready: inherited */
    if (zstd_lazy_init() != 0 || alloc_buffers() != 0)
        return -1;
    if (had)
        return 0;
    /* zstd sizes and clears its tables on the first frame: do it now, off
     * the tick path, rather than in the first flush. */
    uint8_t probe = 0;
    ZSTD_inBuffer in = { &probe, 1, 0 };
    ZSTD_outBuffer out = { w.out, w.out_cap, 0 };
    zstd_lazy.compressStream2(w.cctx, &out, &in, ZSTD_e_end);
    zstd_lazy.CCtx_reset(w.cctx, ZSTD_reset_session_only);
    return 0;
}

static void write_header(const struct writer_image *img, uint64_t start_ns)
{
    static uint8_t tmp[PP_MAX_RECORD];
    struct buf b = { tmp, 0, sizeof tmp };
    memcpy(b.p, PP_MAGIC, PP_MAGIC_LEN);
    b.len = PP_MAGIC_LEN;
    put_varint(&b, PP_FORMAT_VERSION);
    put_varint(&b, (uint64_t)pp_state.pid);
    put_varint(&b, (uint64_t)pp_state.ppid);
    put_u64le(&b, pp_state.uid);
    put_u64le(&b, pp_state.parent_uid);
    if (b.len < b.cap)
        b.p[b.len++] = (uint8_t)pp_state.started_by;
    put_varint(&b, start_ns);
    put_varint(&b, img->interval_ns);
    char *const *argv = img->argv;
    unsigned argc = 0;
    while (argv && argv[argc] && argc < PP_MAX_ARGV)
        argc++;
    put_varint(&b, argc);
    for (unsigned i = 0; i < argc; i++) {
        /* Keep the header within one record whatever the command line. */
        size_t n = strlen(argv[i]);
        if (b.len + n + 64 * (argc - i) > b.cap - 16384)
            n = 0;
        put_bytes(&b, argv[i], n);
    }
    /* Read once per image: a fork child runs the same executable on the
     * same host, and need not ask again. */
    static char exe[PATH_MAX], host[256];
    static int known;
    if (!known) {
        /* The thread's view: the process's fails once main has ended
         * with pthread_exit. */
        ssize_t n = readlink("/proc/thread-self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        gethostname(host, sizeof host - 1);
        known = 1;
    }
    put_str(&b, exe);
    put_str(&b, img->py_version);
    put_str(&b, host);
    put_varint(&b, img->free_threaded ? PP_HDR_FREE_THREADED : 0);
    emit(PP_REC_HEADER, &b);
}

/* The begun file (w_path) created in the directory, made if it is
 * missing.  0, or -1 with one message. */
static int create_file(void)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    /* The directory is made (or found not to be one) only when the file
     * cannot be created: most files go where an earlier process of the
     * tree already made it. */
    int fd = open(w_path, flags, 0600);
    if (fd < 0) {
        if (make_dirs(pp_out_dir()) != 0) {
            pp_not_profiled("cannot create %s: %s", pp_out_dir(),
                            strerror(errno));
            return -1;
        }
        fd = open(w_path, flags, 0600);
    }
    if (fd < 0) {
        pp_not_profiled("cannot create %s: %s", w_path, strerror(errno));
        return -1;
    }
    struct stat st;
    fstat(fd, &st);
    w.dev = st.st_dev;
    w.ino = st.st_ino;
    w.fd = -1;
    if (keeps_fd())
        w.fd = fd;
    else
        close(fd);
    pp_log(1, "profiling into %s", w_path);
    return 0;
}

int writer_open(const struct writer_image *img)
{
    /* The file's account (its start, the ticks' time base, the deadlines
     * counted as missed) starts here, before the work of creating it. */
    uint64_t start_ns = pp_clock_ns(CLOCK_REALTIME);
    uint64_t start_mono = pp_clock_ns(CLOCK_MONOTONIC);
    if (zstd_lazy_init() != 0)
        return -1;              /* it said why */
    if (alloc_buffers() != 0) {
        pp_not_profiled("out of memory");
        return -1;
    }
    /* The segment before this one (the same image's, ended): its fd. */
    if (w.have_file && w.fd >= 0 && keeps_fd() && own_fd_is(w.fd, w.dev, w.ino))
        close(w.fd);
    w.fd = -1;
    w.have_file = 0;
    w.uncreated = 0;
    file_name(w_path, sizeof w_path, img->argv ? img->argv[0] : NULL, img);
    if (!img->defer_create && create_file() != 0)
        return -1;
    w.have_file = 1;
    w.uncreated = img->defer_create != 0;
    w.broken = 0;
    w.stop_err = 0;
    w.ticks_kept = 0;
    w.bytes = 0;
    w.gen++;
    w.next_string = w.next_code = w.next_node = 0;
    w.raw_len = 0;
    reset_tables();
    w.last_tick_ns = start_mono;
    w.start_mono = start_mono;
    w.start_real = start_ns;
    /* Reset when the file's first frame starts (compress), if it is not
     * written stored (end_stored). */
    w.frame_started = 0;
    w.cctx_stale = 1;
    write_header(img, start_ns);
    if (img->segmented) {
        uint8_t tmp[40];
        struct buf b = { tmp, 0, sizeof tmp };
        put_varint(&b, img->seq);
        put_varint(&b, img->seq ? img->image_start_ns : start_ns);
        put_varint(&b, img->threads_before);
        emit(PP_REC_SEGMENT, &b);
    }
    return 0;
}

int writer_deferred(void) { return w.have_file && w.uncreated; }

int writer_create(void)
{
    if (!writer_deferred())
        return 0;
    if (create_file() != 0) {
        w.broken = 1;           /* nothing of it is written */
        return -1;
    }
    w.uncreated = 0;
    return 0;
}

uint64_t writer_start_ns(void) { return w.start_mono; }
uint64_t writer_start_realtime_ns(void) { return w.start_real; }
uint32_t writer_file_gen(void) { return w.gen; }

void writer_thread(uint32_t idx, uint32_t native_tid, const char *name,
                   const char *os_name)
{
    uint8_t tmp[2 * WRITER_THREAD_NAME + 32];
    struct buf b = { tmp, 0, sizeof tmp };
    put_varint(&b, idx);
    put_varint(&b, native_tid);
    char nm[WRITER_THREAD_NAME];
    snprintf(nm, sizeof nm, "%s", name ? name : "");
    put_str(&b, nm);
    if (os_name && strcmp(os_name, nm)) {
        snprintf(nm, sizeof nm, "%s", os_name);
        put_str(&b, nm);
    }
    emit(PP_REC_THREAD, &b);
}

void writer_title(const char *title)
{
    static uint8_t tmp[PP_MAX_TITLE + 16];
    struct buf b = { tmp, 0, sizeof tmp };
    put_bytes(&b, title, strnlen(title, PP_MAX_TITLE));
    emit(PP_REC_TITLE, &b);
}

void writer_control(int what, uint32_t window, uint32_t seq, uint64_t at_ns,
                    const char *text, size_t len)
{
    uint8_t tmp[PP_MAX_MARK_TEXT + 64];
    struct buf b = { tmp, 0, sizeof tmp };
    if (b.len < b.cap)
        b.p[b.len++] = (uint8_t)what;
    put_varint(&b, window);
    put_varint(&b, seq);
    put_varint(&b, at_ns);
    put_bytes(&b, text, len < PP_MAX_MARK_TEXT ? len : PP_MAX_MARK_TEXT);
    emit(PP_REC_CONTROL, &b);
}

/* The leaf of thread idx's last sample written in this file (0: none). */
static uint32_t last_leaf(uint32_t idx)
{
    const struct path *p = idx < w.npaths && w.paths[idx].gen == w.gen ?
                           &w.paths[idx] : NULL;
    return p && p->len ? p->node[p->len - 1] : 0;
}

/* This tick's CPU_EXTRA entries: rare (a sampler that missed deadlines
 * while threads ran), so a small fixed buffer. */
static uint8_t cpu_extra[1024];
PP_CHILD_WRITES static size_t cpu_extra_len;
/* This tick's TASK_WAIT entries: a thread's pending tasks, at most a few
 * dozen a tick (sampler.c), each a thread, a leaf and a count. */
static uint8_t task_wait[2048];
PP_CHILD_WRITES static size_t task_wait_len;

void writer_tick_prepare(void)
{
    cpu_extra_len = task_wait_len = 0;  /* a fork child may inherit a tick half made */
    w.tick_len = 0;
    clean_tables();
}

void writer_tick_begin(uint64_t mono_ns)
{
    cpu_extra_len = task_wait_len = 0;
    /* Deltas are written in whole 1024 ns steps: the nanoseconds of timer
     * jitter are noise that zstd cannot compress, and the remainder is
     * carried to the next tick so that times never drift. */
    /* A tick stamped before the file's start (the one that created it)
     * counts as at the start; moving the base back would put every later
     * tick that much too late. */
    clean_tables();
    uint64_t dt = 0;
    if (mono_ns > w.last_tick_ns) {
        dt = (mono_ns - w.last_tick_ns) & ~(uint64_t)1023;
        w.last_tick_ns += dt;
    }
    w.tick_len = pp_put_varint(w.tick, dt);
}

void writer_sample(uint32_t thread_idx, const struct pyvm_thread *t,
                   unsigned flags)
{
    if (w.tick_len + 32 > TICK_CAP)
        return;
    uint32_t leaf = t->depth ? stack_leaf(thread_idx, t) : 0;
    w.tick_len += pp_put_varint(w.tick + w.tick_len, thread_idx);
    w.tick_len += pp_put_varint(w.tick + w.tick_len, leaf);
    w.tick[w.tick_len++] = (uint8_t)flags;
}

void writer_cpu_extra(uint32_t thread_idx, unsigned flags, uint32_t count)
{
    uint32_t leaf = last_leaf(thread_idx);
    if (!count || !leaf || cpu_extra_len + 32 > sizeof cpu_extra)
        return;
    if (count > PP_MAX_CPU_EXTRA)
        count = PP_MAX_CPU_EXTRA;
    cpu_extra_len += pp_put_varint(cpu_extra + cpu_extra_len, thread_idx);
    cpu_extra_len += pp_put_varint(cpu_extra + cpu_extra_len, leaf);
    cpu_extra[cpu_extra_len++] = (uint8_t)(flags | PP_SAMPLE_ON_CPU);
    cpu_extra_len += pp_put_varint(cpu_extra + cpu_extra_len, count);
}

void writer_task_wait(uint32_t thread_idx, const struct pyvm_thread *t, uint32_t count)
{
    if (!count || !t->depth || task_wait_len + 32 > sizeof task_wait)
        return;
    if (count > PP_MAX_TASK_WAIT)
        count = PP_MAX_TASK_WAIT;
    /* the stack from its outermost frame: no path of the thread's to
     * reuse, and the thread's own path is left as its sample made it */
    uint32_t leaf = 0;
    for (unsigned i = 0; i < t->depth; i++) {
        const struct pyvm_frame *f = &t->frames[t->depth - 1 - i];
        if (!(leaf = node_id(leaf, code_id(f->code), f->line)))
            return;
    }
    task_wait_len += pp_put_varint(task_wait + task_wait_len, thread_idx);
    task_wait_len += pp_put_varint(task_wait + task_wait_len, leaf);
    task_wait_len += pp_put_varint(task_wait + task_wait_len, count);
}

void writer_tick_end(void)
{
    record(PP_REC_TICK, w.tick, w.tick_len);
    if (cpu_extra_len)
        record(PP_REC_CPU_EXTRA, cpu_extra, cpu_extra_len);
    if (task_wait_len)
        record(PP_REC_TASK_WAIT, task_wait, task_wait_len);
    cpu_extra_len = task_wait_len = 0;
}

/* Rejects since the last flush by leaf node.  A full table counts the
 * rest under leaf 0 (unknown), taking over its last slot if need be. */
#define REJECT_SLOTS 32
struct reject_count { uint32_t leaf, count; };
static struct reject_count rejects[REJECT_SLOTS];
PP_CHILD_WRITES static unsigned nrejects;

static unsigned reject_slot(uint32_t leaf)
{
    for (unsigned i = 0; i < nrejects; i++)
        if (rejects[i].leaf == leaf)
            return i;
    return REJECT_SLOTS;
}

void writer_reject(uint32_t thread_idx)
{
    uint32_t leaf = last_leaf(thread_idx);
    unsigned i = reject_slot(leaf);
    if (i == REJECT_SLOTS && nrejects < REJECT_SLOTS) {
        i = nrejects++;
        rejects[i] = (struct reject_count){ leaf, 0 };
    } else if (i == REJECT_SLOTS) {
        i = reject_slot(0);
        if (i == REJECT_SLOTS) {
            i = REJECT_SLOTS - 1;
            rejects[i].leaf = 0;
        }
    }
    rejects[i].count++;
}

static void emit_rejects(void)
{
    uint8_t tmp[REJECT_SLOTS * 20];
    struct buf b = { tmp, 0, sizeof tmp };
    for (unsigned i = 0; i < nrejects; i++) {
        put_varint(&b, rejects[i].leaf);
        put_varint(&b, rejects[i].count);
    }
    if (nrejects)
        emit(PP_REC_REJECTS, &b);
    nrejects = 0;
}

static void put_counters(const struct writer_counters *c, struct buf *b)
{
    put_varint(b, c->samples);
    put_varint(b, c->rejected);
    put_varint(b, c->missed);
    put_varint(b, c->sampler_cpu_ns);
    put_varint(b, c->ticks);
    put_varint(b, c->tick_ns);
    put_varint(b, c->idle);
}

static void put_failed_reads(const struct writer_counters *c, struct buf *b)
{
    for (size_t i = 0; i < sizeof c->failed_reads / sizeof *c->failed_reads; i++)
        put_varint(b, c->failed_reads[i]);
}

void writer_flush(const struct writer_counters *c)
{
    if (!w.have_file)
        return;
    uint8_t tmp[128];
    struct buf b = { tmp, 0, sizeof tmp };
    emit_rejects();
    put_counters(c, &b);
    put_failed_reads(c, &b);
    emit(PP_REC_COUNTERS, &b);
    compress(ZSTD_e_flush);
    if (!w.broken)
        w.ticks_kept = c->ticks;
}

void writer_end(int how, int value, const struct writer_counters *c)
{
    if (!w.have_file)
        return;
    uint8_t tmp[128];
    struct buf b = { tmp, 0, sizeof tmp };
    emit_rejects();
    put_varint(&b, pp_clock_ns(CLOCK_REALTIME));
    if (b.len < b.cap)
        b.p[b.len++] = (uint8_t)how;
    put_varint(&b, pp_zigzag(value));
    put_counters(c, &b);
    /* The file's span on the monotonic clock: start and end above are
     * wall-clock times, which a clock step (NTP, a VM resuming) moves. */
    uint64_t now = pp_clock_ns(CLOCK_MONOTONIC);
    put_varint(&b, now > w.start_mono ? now - w.start_mono : 0);
    put_failed_reads(c, &b);
    emit(PP_REC_END, &b);
    if (!end_stored())
        compress(ZSTD_e_end);
    if (w.stop_err)
        pp_stopped_writing(w_stop_reason, w.stop_err, w.stop_ns,
                           c->ticks > w.ticks_kept ? (long long)(c->ticks - w.ticks_kept) : 0);
}

/* Empties the string and node tables (their memory is kept; each thread's
 * path belongs to the file of its gen): ids restart at 1 in every file,
 * and every file defines its own. */
static void reset_tables(void)
{
    w.tick_len = 0;
    nrejects = 0;
    if (w.nodes_used || w.strs_used)
        w.tables_stale = 1;
    w.nodes_used = 0;
    w.strs_used = 0;
}

/* The tables' memory is emptied when a tick first needs it, not when the
 * file starts: a file that ends before its first tick never touches it.
 * A fork child's copies are zero-filled already (writer_after_fork), or,
 * where the kernel cannot do that, copied page by page here
 * (pyprof(7), "Timing and cost"). */
static void clean_tables(void)
{
    if (!w.tables_stale)
        return;
    if (w.nodes)
        memset(w.nodes, 0, w.nodes_cap * sizeof *w.nodes);
    if (w.strs)
        memset(w.strs, 0, w.strs_cap * sizeof *w.strs);
    w.tables_stale = 0;
}

/* Drops this image's file and unwritten bytes without writing anything. */
static void forget(void)
{
    /* The parent owns the file and everything buffered: the child must
     * not write a byte of it.  Tables are rebuilt for the child's file;
     * their memory is reused, only emptied.  Nothing to close: the fd, if
     * one is open, is in the parent's sampler's private table, never in
     * the table this child copied. */
    w.fd = -1;
    w.have_file = 0;
    w.uncreated = 0;
    w.raw_len = 0;
    w.stop_err = 0;      /* the parent's */
    reset_tables();
}

void writer_discard(void)
{
    if (w.have_file && !w.uncreated) {
        if (w.fd >= 0 && keeps_fd() && own_fd_is(w.fd, w.dev, w.ino))
            close(w.fd);
        unlink(w_path);
    }
    forget();
}

void writer_hold_fd(int hold)
{
    if (hold) {
        w.held = 1;
        return;
    }
    w.held = 0;
    if (w.fd >= 0 && !own_fd_keep()) {
        close(w.fd);
        w.fd = -1;
    }
}

void writer_after_fork(void)
{
    forget();
    /* The child's copies of the tables are zero-filled: empty.  So is the
     * compressor where it lives in image_mem (make_cctx). */
    if (image_mem_wiped()) {
        w.tables_stale = 0;
        if (w.cctx && cctx_static)
            w.cctx_wiped = 1;
    }
}

uint64_t writer_bytes(void) { return w.bytes; }
uint64_t writer_pending(void) { return w.raw_len; }
