/*
 * pp-gen — writes synthetic pyprof files for the merge benchmark.
 *
 *     pp-gen DIR NFILES TOTAL_SAMPLES [SEED [HOSTS]]
 *
 * With HOSTS, the files are spread evenly over that many hosts (node000,
 * node001, ...), each a tree of its own whose pids start again at 10000
 * (pids collide across hosts, as in containers or on separate machines),
 * and whose clock is off from the others' by several seconds.
 * Writes NFILES valid files (format.h) into DIR holding TOTAL_SAMPLES
 * thread-samples in all, as one made-up multi-process application would:
 * one root, the rest its fork/spawn children; 1 to 8 threads per process;
 * every process draws its stacks from a shared "program" of 400 functions
 * in 40 source files, so that processes share most stacks.  A file's
 * distinct stacks (its trie, every NODE record) are fixed by its index and
 * written before the first tick, and every thread visits each of its
 * stacks with each flags value early on, so the distinct (thread, stack,
 * flags) do not depend on TOTAL_SAMPLES once files hold 1,440 samples or
 * more: merging 5 M and 50 M samples must then take the same memory.  Samples repeat the thread's previous stack with high
 * probability and otherwise pick by a skewed distribution, like a real
 * profile.  Files are zstd level 3, flushed with a COUNTERS record every
 * 200 ticks, and end with an END record, like the writer's.
 *
 * Prints "files=N samples=N bytes=N" on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "pyprof/format.h"

#define NFUNCS      400
#define NSRC        40
#define NSTACKS     2000     /* in the shared program                     */
#define PER_FILE    300      /* stacks one process uses                   */
#define PER_THREAD  60       /* stacks one thread uses                    */
#define MAX_DEPTH   48
#define FLUSH_TICKS 200
#define RAW_CAP     (256u << 10)

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

/* Skewed pick in [0, n): small indices are much more likely. */
static unsigned skewed(unsigned n)
{
    double u = (double)(rnd() >> 11) / 9007199254740992.0;
    unsigned k = (unsigned)(n * u * u * u);
    return k < n ? k : n - 1;
}

/* ---------------------------------------------------------- the program */

struct frame { uint16_t func; int32_t line; };
struct stack { unsigned depth; struct frame f[MAX_DEPTH]; };
static struct stack program[NSTACKS];
static int32_t func_line[NFUNCS];

static void make_program(void)
{
    for (unsigned i = 0; i < NFUNCS; i++)
        func_line[i] = 10 + (int32_t)below(2000);
    for (unsigned s = 0; s < NSTACKS; s++) {
        struct stack *st = &program[s];
        /* Half the stacks extend an earlier one, like calls from a parent. */
        if (s > 8 && below(2)) {
            *st = program[below(s)];
            if (st->depth > 4 && below(3) == 0)
                st->depth -= 1 + below(3);
        } else {
            st->depth = 1;
            st->f[0] = (struct frame){ 0, 1 + (int32_t)below(40) };
        }
        unsigned add = 1 + below(st->depth < 8 ? 8 : 4);
        while (add-- && st->depth < MAX_DEPTH) {
            uint16_t fn = (uint16_t)(1 + skewed(NFUNCS - 1));
            st->f[st->depth++] = (struct frame){ fn, func_line[fn] + 1 +
                                                     (int32_t)below(30) };
        }
    }
}

/* ---------------------------------------------------------- one file */

static struct {
    int fd;
    ZSTD_CCtx *cctx;
    uint8_t raw[RAW_CAP]; size_t raw_len;
    uint8_t *out; size_t out_cap;
    uint64_t bytes;
    int failed;
} g;

static void drain(ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = { g.raw, g.raw_len, 0 };
    size_t left;
    do {
        ZSTD_outBuffer out = { g.out, g.out_cap, 0 };
        left = ZSTD_compressStream2(g.cctx, &out, &in, mode);
        if (ZSTD_isError(left)) {
            fprintf(stderr, "pp-gen: zstd: %s\n", ZSTD_getErrorName(left));
            g.failed = 1;
            break;
        }
        if (out.pos && write(g.fd, g.out, out.pos) != (ssize_t)out.pos) {
            fprintf(stderr, "pp-gen: write: %s\n", strerror(errno));
            g.failed = 1;
            break;
        }
        g.bytes += out.pos;
    } while (mode == ZSTD_e_continue ? in.pos < in.size : left != 0);
    g.raw_len = 0;
}

struct buf { uint8_t p[4096]; size_t len; };

static void vput(struct buf *b, uint64_t v) { b->len += pp_put_varint(b->p + b->len, v); }

static void sput(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    vput(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void u64put(struct buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void emit(int kind, const uint8_t *p, size_t len)
{
    if (g.raw_len + len + 11 > RAW_CAP)
        drain(ZSTD_e_continue);
    g.raw[g.raw_len++] = (uint8_t)kind;
    g.raw_len += pp_put_varint(g.raw + g.raw_len, len);
    memcpy(g.raw + g.raw_len, p, len);
    g.raw_len += len;
}

static void emit_buf(int kind, const struct buf *b) { emit(kind, b->p, b->len); }

/* Node trie of this file: (parent, code, line) -> id, linear probing. */
struct node { uint32_t parent, code; int32_t line; uint32_t id; };
static struct node *nodes;
static size_t nodes_cap;
static uint32_t next_node;

static uint32_t node_id(uint32_t parent, uint32_t code, int32_t line)
{
    size_t h = ((size_t)parent * 0x9E3779B97F4A7C15ULL ^
                ((size_t)code << 20) ^ (size_t)(uint32_t)line) *
               0xBF58476D1CE4E5B9ULL;
    size_t j = (h >> 20) & (nodes_cap - 1);
    for (; nodes[j].id; j = (j + 1) & (nodes_cap - 1))
        if (nodes[j].parent == parent && nodes[j].code == code &&
            nodes[j].line == line)
            return nodes[j].id;
    uint32_t id = ++next_node;
    nodes[j] = (struct node){ parent, code, line, id };
    struct buf b = { .len = 0 };
    vput(&b, id);
    vput(&b, parent);
    vput(&b, code);
    vput(&b, pp_zigzag(line));
    emit_buf(PP_REC_NODE, &b);
    return id;
}

static void counters(int kind, const struct buf *prefix, uint64_t samples,
                     uint64_t ticks)
{
    struct buf b = { .len = 0 };
    if (prefix) {
        memcpy(b.p, prefix->p, prefix->len);
        b.len = prefix->len;
    }
    vput(&b, samples);
    vput(&b, 0);                         /* rejected */
    vput(&b, 0);                         /* missed */
    vput(&b, samples * 700);             /* sampler_cpu_ns: 0.7 us each */
    vput(&b, ticks);
    emit_buf(kind, &b);
}

static unsigned nhosts = 1;

static int write_file(const char *dir, unsigned file, uint64_t samples,
                      const uint64_t *root_uids)
{
    char path[4096], host[32];
    /* file's place in its host's tree: idx 0 is the host's root */
    unsigned h = file % nhosts, idx = file / nhosts;
    uint64_t root_uid = root_uids[h];
    unsigned pid = 10000 + idx;
    uint64_t uid = idx ? rnd() | 1 : root_uid;
    if (nhosts > 1)
        snprintf(host, sizeof host, "node%03u", h);
    else
        snprintf(host, sizeof host, "benchhost");
    snprintf(path, sizeof path, "%s/python3.%s.%u.%016llx.zst", dir, host, pid,
             (unsigned long long)uid);
    g.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (g.fd < 0) {
        fprintf(stderr, "pp-gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    ZSTD_CCtx_reset(g.cctx, ZSTD_reset_session_only);
    g.raw_len = 0;
    g.failed = 0;

    /* Header. */
    struct buf b = { .len = 0 };
    memcpy(b.p, PP_MAGIC, PP_MAGIC_LEN);
    b.len = PP_MAGIC_LEN;
    vput(&b, PP_FORMAT_VERSION);
    vput(&b, pid);
    vput(&b, idx ? 10000 : 9999);
    u64put(&b, uid);
    u64put(&b, idx ? root_uid : 0);
    b.p[b.len++] = (uint8_t)(idx == 0 ? PP_START_ROOT :
                             idx % 3 ? PP_START_FORK : PP_START_SPAWN);
    /* Each host's clock is off by 7.3 s a host from the first's. */
    uint64_t start = 1700000000000000000ULL + (uint64_t)idx * 1000000ULL +
                     (uint64_t)h * 7300000000ULL;
    vput(&b, start);
    vput(&b, 1000000);                   /* 1 kHz */
    char arg[32];
    snprintf(arg, sizeof arg, "--worker=%u", idx);
    vput(&b, 3);
    sput(&b, "python3");
    sput(&b, "/srv/app/main.py");
    sput(&b, arg);
    sput(&b, "/usr/bin/python3.12");
    sput(&b, "3.12.1");
    sput(&b, host);
    vput(&b, 0);
    emit_buf(PP_REC_HEADER, &b);

    /* Strings and code objects: every function of the program. */
    char s[128];
    for (unsigned i = 0; i < NSRC; i++) {
        b.len = 0;
        vput(&b, 1 + i);
        snprintf(s, sizeof s, "/srv/app/pkg%u/module_%u.py", i % 7, i);
        sput(&b, s);
        emit_buf(PP_REC_STRING, &b);
    }
    for (unsigned i = 0; i < NFUNCS; i++) {
        uint32_t sid = NSRC + 1 + i;
        b.len = 0;
        vput(&b, sid);
        if (i == 0)
            snprintf(s, sizeof s, "<module>");
        else
            snprintf(s, sizeof s, "Handler%u.step_%u", i % 23, i);
        sput(&b, s);
        emit_buf(PP_REC_STRING, &b);
        b.len = 0;
        vput(&b, 1 + i);                 /* code id */
        vput(&b, sid);                   /* qualname */
        vput(&b, 1 + i % NSRC);          /* file */
        vput(&b, (uint64_t)func_line[i]);
        vput(&b, sid);                   /* bare name (same string here) */
        emit_buf(PP_REC_CODE, &b);
    }

    /* This process's stacks: a window of the program chosen by idx. */
    static uint32_t leaf[PER_FILE];
    memset(nodes, 0, nodes_cap * sizeof *nodes);
    next_node = 0;
    for (unsigned k = 0; k < PER_FILE; k++) {
        const struct stack *st = &program[(idx * 37 + k * 7) % NSTACKS];
        uint32_t parent = 0;
        for (unsigned d = 0; d < st->depth; d++)
            parent = node_id(parent, 1u + st->f[d].func, st->f[d].line);
        leaf[k] = parent;
    }

    unsigned nthreads = 1 + idx % 8;
    for (unsigned t = 1; t <= nthreads; t++) {
        b.len = 0;
        vput(&b, t);
        vput(&b, pid + t - 1);
        snprintf(s, sizeof s, t == 1 ? "MainThread" : "worker-%u", t - 1);
        sput(&b, s);
        emit_buf(PP_REC_THREAD, &b);
    }

    /* Each thread uses PER_THREAD of the file's stacks.  The first
     * 3 * PER_THREAD ticks visit every (stack, flags) pair of every thread
     * once, so that any file of at least 3 * PER_THREAD * 8 samples holds
     * all the distinct (thread, stack, flags) of its larger versions. */
    static const unsigned flag_set[3] = { 0, PP_SAMPLE_ON_CPU,
                                          PP_SAMPLE_ON_CPU | PP_SAMPLE_HOLDS_GIL };
    unsigned cur[8], main_fl = 0;
    uint32_t main_leaf = 0;
    for (unsigned t = 0; t < nthreads; t++)
        cur[t] = 0;
    uint64_t ticks = (samples + nthreads - 1) / nthreads, done = 0;
    for (uint64_t k = 0; k < ticks && done < samples; k++) {
        b.len = 0;
        vput(&b, 1000000 - 20000 + below(40000));
        for (unsigned t = 0; t < nthreads && done < samples; t++, done++) {
            unsigned fl;
            if (k < 3 * PER_THREAD) {
                cur[t] = (unsigned)(k % PER_THREAD);
                fl = flag_set[k / PER_THREAD];
            } else {
                if (below(10) < 3)
                    cur[t] = skewed(PER_THREAD);
                fl = flag_set[below(4) ? 1 + (t == k % nthreads) : 0];
            }
            vput(&b, t + 1);
            vput(&b, leaf[(t * 37 + cur[t] * 5) % PER_FILE]);
            b.p[b.len++] = (uint8_t)fl;
            if (t == 0) {
                main_leaf = leaf[(t * 37 + cur[t] * 5) % PER_FILE];
                main_fl = fl;
            }
        }
        emit_buf(PP_REC_TICK, &b);
        /* Now and then the main thread's CPU time of missed deadlines (a
         * busy host), without touching the random stream above. */
        if (k % 53 == 52 && (main_fl & PP_SAMPLE_ON_CPU)) {
            b.len = 0;
            vput(&b, 1);
            vput(&b, main_leaf);
            b.p[b.len++] = (uint8_t)main_fl;
            vput(&b, 1 + k % 3);
            emit_buf(PP_REC_CPU_EXTRA, &b);
        }
        if ((k + 1) % FLUSH_TICKS == 0) {
            counters(PP_REC_COUNTERS, NULL, done, k + 1);
            drain(ZSTD_e_flush);
        }
    }
    if (idx % 2) {          /* a worker that titled itself */
        b.len = 0;
        snprintf(s, sizeof s, "gen: worker %u [app]", idx);
        sput(&b, s);
        emit_buf(PP_REC_TITLE, &b);
    }
    b.len = 0;
    vput(&b, start + ticks * 1000000ULL);
    b.p[b.len++] = PP_END_EXIT;
    vput(&b, pp_zigzag(0));
    counters(PP_REC_END, &b, done, ticks);
    drain(ZSTD_e_end);
    close(g.fd);
    return g.failed ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pp-gen DIR NFILES TOTAL_SAMPLES [SEED [HOSTS]]\n");
        return 2;
    }
    const char *dir = argv[1];
    unsigned nfiles = (unsigned)strtoul(argv[2], NULL, 10);
    uint64_t total = strtoull(argv[3], NULL, 10);
    rng_state = argc > 4 ? strtoull(argv[4], NULL, 10) : 42;
    nhosts = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 1;
    if (!nhosts || nhosts > nfiles) {
        fprintf(stderr, "pp-gen: HOSTS must be 1 to NFILES\n");
        return 2;
    }
    if (!nfiles) {
        fprintf(stderr, "pp-gen: NFILES must be positive\n");
        return 2;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "pp-gen: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    make_program();
    g.cctx = ZSTD_createCCtx();
    g.out_cap = ZSTD_CStreamOutSize();
    g.out = malloc(g.out_cap);
    nodes_cap = 1u << 16;
    nodes = calloc(nodes_cap, sizeof *nodes);
    if (!g.cctx || !g.out || !nodes) {
        fprintf(stderr, "pp-gen: out of memory\n");
        return 1;
    }
    ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_windowLog, 18);
    ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_checksumFlag, 1);
    uint64_t *root_uids = malloc(nhosts * sizeof *root_uids), written = 0;
    if (!root_uids) {
        fprintf(stderr, "pp-gen: out of memory\n");
        return 1;
    }
    for (unsigned h = 0; h < nhosts; h++)
        root_uids[h] = rnd() | 1;
    for (unsigned i = 0; i < nfiles; i++) {
        uint64_t share = total / nfiles + (i < total % nfiles ? 1 : 0);
        if (write_file(dir, i, share, root_uids) != 0)
            return 1;
        written += share;
    }
    printf("files=%u samples=%llu bytes=%llu\n", nfiles,
           (unsigned long long)written, (unsigned long long)g.bytes);
    return 0;
}
