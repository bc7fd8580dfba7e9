/*
 * pp-dump — the benchmark's own small reader of pyprof files.
 *
 *     pp-dump [-s] FILE...
 *
 * Decodes each file (format.h) independently of pyprof-merge and prints one
 * line of key=value pairs per file for bench/run.py:
 *
 *   file, size (compressed bytes), raw (decoded bytes), complete (END seen),
 *   samples/rejected/missed/cpu_ns/ticks/tick_ns (last COUNTERS or END record),
 *   tick_records, entries (thread-samples counted in TICK records),
 *   threads, nodes, codes, strings, hz, start_ns, end_ns (realtime),
 *   span_ns (sum of TICK dt), bytes_<kind> (decoded bytes per record kind),
 *   and the steady state, between the COUNTERS record nearest to the
 *   middle of the run and the last COUNTERS record before END (so neither
 *   start-up nor exit counts): steady_c_<counter> (the counters' growth),
 *   steady_samples (thread-samples in TICK records), steady_ns, and with
 *   -s steady_bytes, the compressed bytes in between.  To tie decoded
 *   records to compressed offsets, -s feeds the decoder one byte at a time:
 *   a flush ends a zstd block, and a block's bytes come out only once it is
 *   whole.  PP_DUMP_SERIES=1 lists every COUNTERS record on stderr.
 *
 * Exit status 0 when every file decoded, 1 otherwise (the line then says
 * error=...).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pyprof/format.h"

struct mark { size_t raw, comp; };     /* raw bytes out after comp bytes in */

struct decoded {
    uint8_t *raw; size_t len, cap;
    struct mark *marks; size_t nmarks, capmarks;
    size_t comp;
    int truncated;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        if (n == cap) {
            uint8_t *q = realloc(b, cap * 2);
            if (!q) { free(b); b = NULL; break; }
            b = q;
            cap *= 2;
        }
        size_t k = fread(b + n, 1, cap - n, f);
        if (k == 0)
            break;
        n += k;
    }
    fclose(f);
    *len = n;
    return b;
}

/* Decodes src; with step == 1 records (raw, comp) each time output grows. */
static const char *decode(const uint8_t *src, size_t n, size_t step,
                          struct decoded *d)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return "out of memory";
    size_t pos = 0, last = 1;
    const char *err = NULL;
    while (pos < n) {
        size_t chunk = n - pos < step ? n - pos : step;
        ZSTD_inBuffer in = { src + pos, chunk, 0 };
        while (in.pos < in.size || last != 0) {
            if (grow((void **)&d->raw, &d->cap, d->len + ZSTD_DStreamOutSize(), 1)) {
                err = "out of memory";
                break;
            }
            ZSTD_outBuffer out = { d->raw + d->len, d->cap - d->len, 0 };
            size_t before_in = in.pos;
            last = ZSTD_decompressStream(dc, &out, &in);
            if (ZSTD_isError(last)) {
                err = ZSTD_getErrorName(last);
                break;
            }
            d->len += out.pos;
            if (out.pos && step == 1) {
                if (grow((void **)&d->marks, &d->capmarks, d->nmarks + 1,
                         sizeof *d->marks)) {
                    err = "out of memory";
                    break;
                }
                d->marks[d->nmarks++] = (struct mark){ d->len, pos + in.pos };
            }
            if (out.pos < out.size && in.pos == before_in)
                break;      /* needs more input */
        }
        if (err)
            break;
        pos += chunk;
    }
    d->comp = pos;
    d->truncated = !err && last != 0;
    ZSTD_freeDCtx(dc);
    return err;
}

/* Compressed bytes consumed when decoded byte raw_end came out. */
static size_t comp_at(const struct decoded *d, size_t raw_end)
{
    size_t lo = 0, hi = d->nmarks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->marks[mid].raw < raw_end)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->nmarks ? d->marks[lo].comp : d->comp;
}

struct stats {
    uint64_t counters[6];    /* samples rejected missed cpu_ns ticks tick_ns */
    int complete, have_counters;
    uint64_t tick_records, entries, threads, nodes, codes, strings;
    uint64_t hz, start_ns, end_ns, span_ns, dt_sum;
    uint64_t kind_bytes[9];
    /* per COUNTERS record: raw end offset, thread-samples so far, time */
    struct cmark {
        size_t raw; uint64_t entries, t_ns, c[6]; int end;
    } *cm;
    size_t ncm, capcm;
};

static const char *parse_header(const uint8_t *p, const uint8_t *end,
                                struct stats *s)
{
    if (end - p < PP_MAGIC_LEN || memcmp(p, PP_MAGIC, PP_MAGIC_LEN))
        return "bad magic";
    p += PP_MAGIC_LEN;
    uint64_t v, interval;
    if (pp_get_varint(&p, end, &v) || pp_get_varint(&p, end, &v) ||
        pp_get_varint(&p, end, &v))
        return "short header";
    if (end - p < 17)
        return "short header";
    p += 17;                               /* uid, parent uid, started_by */
    if (pp_get_varint(&p, end, &s->start_ns) ||
        pp_get_varint(&p, end, &interval))
        return "short header";
    s->hz = interval ? 1000000000ULL / interval : 0;
    return NULL;
}

static const char *parse(const struct decoded *d, struct stats *s)
{
    const uint8_t *p = d->raw, *end = d->raw + d->len;
    int first = 1;
    while (p < end) {
        const uint8_t *rec = p;
        uint8_t kind = *p++;
        uint64_t len;
        if (pp_get_varint(&p, end, &len) || len > (uint64_t)(end - p))
            return first ? "truncated first record" : NULL;  /* cut file */
        const uint8_t *q = p, *qe = p + len;
        p = qe;
        if (kind < 9)
            s->kind_bytes[kind] += (uint64_t)(qe - rec);
        if (first && kind != PP_REC_HEADER)
            return "first record is not a header";
        first = 0;
        uint64_t v;
        switch (kind) {
        case PP_REC_HEADER: {
            const char *e = parse_header(q, qe, s);
            if (e)
                return e;
            break;
        }
        case PP_REC_STRING: s->strings++; break;
        case PP_REC_CODE:   s->codes++; break;
        case PP_REC_NODE:   s->nodes++; break;
        case PP_REC_THREAD:
            if (!pp_get_varint(&q, qe, &v) && v > s->threads)
                s->threads = v;
            break;
        case PP_REC_TICK:
            if (pp_get_varint(&q, qe, &v))
                return "bad tick";
            s->dt_sum += v;
            s->tick_records++;
            while (q < qe) {
                uint64_t th, leaf;
                if (pp_get_varint(&q, qe, &th) || pp_get_varint(&q, qe, &leaf) ||
                    q >= qe)
                    return "bad tick entry";
                q++;
                s->entries++;
            }
            break;
        case PP_REC_END:
            if (pp_get_varint(&q, qe, &s->end_ns) || q >= qe)
                return "bad end";
            q++;
            if (pp_get_varint(&q, qe, &v))
                return "bad end";
            s->complete = 1;
            /* the five counters follow */
            __attribute__((fallthrough));
        case PP_REC_COUNTERS:
            for (int i = 0; i < 5; i++)
                if (pp_get_varint(&q, qe, &s->counters[i]))
                    return "bad counters";
            /* tick_ns: newer files only */
            if (q >= qe || pp_get_varint(&q, qe, &s->counters[5]))
                s->counters[5] = 0;
            s->have_counters = 1;
            if (grow((void **)&s->cm, &s->capcm, s->ncm + 1, sizeof *s->cm))
                return "out of memory";
            s->cm[s->ncm] = (struct cmark){ (size_t)(p - d->raw), s->entries,
                                            s->dt_sum, { 0 }, kind == PP_REC_END };
            memcpy(s->cm[s->ncm++].c, s->counters, sizeof s->counters);
            break;
        default:
            break;                       /* unknown kinds are skipped */
        }
    }
    s->span_ns = s->dt_sum;
    return NULL;
}

static int dump(const char *path, int steady)
{
    size_t n = 0;
    uint8_t *src = slurp(path, &n);
    if (!src) {
        printf("file=%s error=%s\n", path, strerror(errno));
        return 1;
    }
    struct decoded d = { 0 };
    const char *err = decode(src, n, steady ? 1 : 1 << 20, &d);
    struct stats s;
    memset(&s, 0, sizeof s);
    if (!err)
        err = parse(&d, &s);
    printf("file=%s size=%zu raw=%zu complete=%d truncated=%d", path, n, d.len,
           s.complete, d.truncated);
    static const char *names[6] = { "samples", "rejected", "missed", "cpu_ns",
                                    "ticks", "tick_ns" };
    for (int i = 0; i < 6; i++)
        printf(" %s=%llu", names[i], (unsigned long long)s.counters[i]);
    printf(" counters=%d tick_records=%llu entries=%llu threads=%llu"
           " nodes=%llu codes=%llu strings=%llu hz=%llu start_ns=%llu"
           " end_ns=%llu span_ns=%llu",
           s.have_counters, (unsigned long long)s.tick_records,
           (unsigned long long)s.entries, (unsigned long long)s.threads,
           (unsigned long long)s.nodes, (unsigned long long)s.codes,
           (unsigned long long)s.strings, (unsigned long long)s.hz,
           (unsigned long long)s.start_ns, (unsigned long long)s.end_ns,
           (unsigned long long)s.span_ns);
    static const char *kinds[9] = { "other", "header", "string", "code", "node",
                                    "thread", "tick", "counters", "end" };
    for (int i = 1; i < 9; i++)
        printf(" bytes_%s=%llu", kinds[i], (unsigned long long)s.kind_bytes[i]);
    /* Steady state: from the COUNTERS record nearest the middle of the run
     * to the last COUNTERS record before END (start-up and exit excluded). */
    size_t b = s.ncm;
    while (b > 0 && s.cm[b - 1].end)
        b--;
    if (b >= 2) {
        b--;
        uint64_t half = s.cm[b].t_ns / 2;
        size_t a = 0;
        while (a + 1 < b && s.cm[a].t_ns < half)
            a++;
        static const char *sn[6] = { "samples", "rejected", "missed", "cpu_ns",
                                     "ticks", "tick_ns" };
        for (int i = 0; i < 6; i++)
            printf(" steady_c_%s=%llu", sn[i],
                   (unsigned long long)(s.cm[b].c[i] - s.cm[a].c[i]));
        printf(" steady_samples=%llu steady_ns=%llu",
               (unsigned long long)(s.cm[b].entries - s.cm[a].entries),
               (unsigned long long)(s.cm[b].t_ns - s.cm[a].t_ns));
        if (steady)
            printf(" steady_bytes=%zu",
                   comp_at(&d, s.cm[b].raw) - comp_at(&d, s.cm[a].raw));
    }
    if (getenv("PP_DUMP_SERIES"))
        for (size_t i = 0; i < s.ncm; i++)
            fprintf(stderr, "t=%.3f ticks=%llu missed=%llu cpu_ms=%.3f%s\n",
                    s.cm[i].t_ns / 1e9, (unsigned long long)s.cm[i].c[4],
                    (unsigned long long)s.cm[i].c[2], s.cm[i].c[3] / 1e6,
                    s.cm[i].end ? " end" : "");
    if (err)
        printf(" error=%s", err);
    printf("\n");
    free(s.cm);
    free(d.raw);
    free(d.marks);
    free(src);
    return err ? 1 : 0;
}

int main(int argc, char **argv)
{
    int steady = 0, rc = 0, i = 1;
    if (i < argc && strcmp(argv[i], "-s") == 0) {
        steady = 1;
        i++;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: pp-dump [-s] FILE...\n");
        return 2;
    }
    for (; i < argc; i++)
        rc |= dump(argv[i], steady);
    return rc;
}
