/*
 * forge.h — for the unit tests: profile files written by hand, record by
 * record (pyprof(5)), and compressed into a temporary file.
 */
#ifndef PYPROF_TEST_FORGE_H
#define PYPROF_TEST_FORGE_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pyprof/format.h"

struct rb { uint8_t *b; size_t n, cap; };

static inline void need(struct rb *r, size_t more)
{
    if (r->n + more <= r->cap)
        return;
    r->cap = (r->n + more) * 2 + 256;
    r->b = realloc(r->b, r->cap);
    cr_assert_not_null(r->b);
}

static inline void put_v(struct rb *r, uint64_t v)
{
    need(r, 10);
    r->n += pp_put_varint(r->b + r->n, v);
}

static inline void put_bytes(struct rb *r, const void *p, size_t n)
{
    need(r, n);
    memcpy(r->b + r->n, p, n);
    r->n += n;
}

static inline void put_s(struct rb *r, const char *s)
{
    put_v(r, strlen(s));
    put_bytes(r, s, strlen(s));
}

/* Appends one record: kind, length, payload (given as varints). */
static inline void rec(struct rb *out, int kind, const uint64_t *v, size_t n)
{
    struct rb p = { 0 };
    for (size_t i = 0; i < n; i++)
        put_v(&p, v[i]);
    uint8_t k = (uint8_t)kind;
    put_bytes(out, &k, 1);
    put_v(out, p.n);
    put_bytes(out, p.b, p.n);
    free(p.b);
}

static inline void rec_str(struct rb *out, int kind, uint64_t id, const char *s)
{
    struct rb p = { 0 };
    put_v(&p, id);
    if (kind == PP_REC_THREAD)
        put_v(&p, 4242);
    put_s(&p, s);
    uint8_t k = (uint8_t)kind;
    put_bytes(out, &k, 1);
    put_v(out, p.n);
    put_bytes(out, p.b, p.n);
    free(p.b);
}

/* The interval the next headers give (a test may change it). */
static uint64_t forge_interval_ns = 10000000;

static inline void header_argv(struct rb *out, size_t argc, const char *const *argv)
{
    struct rb p = { 0 };
    put_bytes(&p, PP_MAGIC, PP_MAGIC_LEN);
    put_v(&p, PP_FORMAT_VERSION);
    put_v(&p, 4242);                       /* pid */
    put_v(&p, 1);                          /* ppid */
    uint64_t uid = 0x1234, parent = 0;
    put_bytes(&p, &uid, 8);
    put_bytes(&p, &parent, 8);
    uint8_t by = PP_START_ROOT;
    put_bytes(&p, &by, 1);
    put_v(&p, 1700000000000000000ULL);     /* start */
    put_v(&p, forge_interval_ns);          /* interval */
    put_v(&p, argc);
    for (size_t i = 0; i < argc; i++)
        put_s(&p, argv[i]);
    put_s(&p, "/usr/bin/python3");
    put_s(&p, "3.12.1");
    put_s(&p, "host");
    put_v(&p, 0);
    uint8_t k = PP_REC_HEADER;
    put_bytes(out, &k, 1);
    put_v(out, p.n);
    put_bytes(out, p.b, p.n);
    free(p.b);
}

static inline void header(struct rb *out)
{
    header_argv(out, 1, (const char *const[]){ "forged.py" });
}

/* Compresses raw records into a file; returns its path. */
static inline const char *to_file(const struct rb *raw)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/pyprof-forged.XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    size_t cap = ZSTD_compressBound(raw->n);
    void *z = malloc(cap);
    size_t n = ZSTD_compress(z, cap, raw->b, raw->n, 3);
    cr_assert(!ZSTD_isError(n));
    cr_assert_eq(write(fd, z, n), (ssize_t)n);
    close(fd);
    free(z);
    return path;
}

#endif
