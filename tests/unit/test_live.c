/*
 * test_live.c — merge/live.c, the live view's picture: profiles of a
 * directory followed as they grow, the processes and the hottest
 * functions for a mode, a process, a thread, recently or since the start
 * (pyprof-merge(1), LIVE VIEW).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "forge.h"
#include "live.h"
#include "reader.h"

/* Appends raw's records to path as one more zstd frame. */
static void append(const char *path, const struct rb *raw)
{
    size_t cap = ZSTD_compressBound(raw->n);
    void *z = malloc(cap);
    size_t n = ZSTD_compress(z, cap, raw->b, raw->n, 3);
    cr_assert(!ZSTD_isError(n));
    FILE *f = fopen(path, "ab");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(z, 1, n, f), n);
    fclose(f);
    free(z);
}

/* outer (line 3) calling inner (line 7), one thread; ticks of 10 ms, the
 * even ones on a CPU. */
static void tables(struct rb *raw)
{
    header(raw);
    rec_str(raw, PP_REC_STRING, 1, "outer");
    rec_str(raw, PP_REC_STRING, 2, "inner");
    rec_str(raw, PP_REC_STRING, 3, "/x.py");
    rec(raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 3, 1, 1 }, 5);
    rec(raw, PP_REC_CODE, (uint64_t[]){ 2, 2, 3, 5, 2 }, 5);
    rec(raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 6 }, 4);   /* line 3, zigzag */
    rec(raw, PP_REC_NODE, (uint64_t[]){ 2, 1, 2, 14 }, 4);  /* line 7 */
    rec_str(raw, PP_REC_THREAD, 1, "MainThread");
}

static void ticks(struct rb *raw, int n, uint64_t leaf)
{
    for (int i = 0; i < n; i++)
        rec(raw, PP_REC_TICK, (uint64_t[]){ 10000000, 1, leaf, i % 2 ? 0 : PP_SAMPLE_ON_CPU },
            4);
}

static uint64_t funcs(struct live *lv, enum m_mode mode, long proc, uint32_t tid,
                      int by_total, struct live_func *rows, size_t *n)
{
    struct live_query q = { .mode = mode, .proc = proc, .tid = tid, .by_total = by_total };
    uint64_t samples;
    *n = live_funcs(lv, &q, rows, 8, &samples);
    return samples;
}

/* A new directory with the paths of two files in it, named a_name and
 * b_name. */
struct two_files { char dir[32], a[128], b[128]; };

static void two_files(struct two_files *t, const char *a_name, const char *b_name)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/pyprof-live.XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    snprintf(t->a, sizeof t->a, "%s/%s", t->dir, a_name);
    snprintf(t->b, sizeof t->b, "%s/%s", t->dir, b_name);
}

static void two_files_gone(struct two_files *t)
{
    unlink(t->a);
    unlink(t->b);
    rmdir(t->dir);
}

Test(live, follows_a_directory_and_ranks_its_functions)
{
    struct two_files tf;
    two_files(&tf, "a.1.0.zst", "b.2.0.zst");
    const char *dir = tf.dir, *a = tf.a, *b = tf.b;
    struct rb ra = { 0 }, rb2 = { 0 }, more = { 0 };
    tables(&ra);
    ticks(&ra, 10, 2);           /* inner, under outer */
    append(a, &ra);
    struct rd_file *chk = rd_read(a);
    cr_assert(chk->samples == 10 && !chk->problem, "%s: %llu samples, %s", a,
              (unsigned long long)chk->samples, chk->problem);
    rd_free(chk);
    struct live *lv = live_new(dir, 5.0);
    cr_assert_eq(live_poll(lv), 10u);
    tables(&rb2);
    ticks(&rb2, 6, 1);           /* outer alone */
    append(b, &rb2);
    cr_assert_eq(live_poll(lv), 6u, "a file that appeared is followed");
    cr_assert_eq(live_poll(lv), 0u, "nothing new");

    struct live_proc procs[4];
    cr_assert_eq(live_procs(lv, procs, 4), 2u);
    cr_expect(!procs[0].ended && !strcmp(procs[0].state, "running"), "%s", procs[0].state);

    struct live_func rows[8];
    size_t n;
    uint64_t all = funcs(lv, MODE_WALL, -1, 0, 0, rows, &n);
    cr_expect(all == 16 && n == 2 && !strcmp(rows[0].name, "inner") && rows[0].self == 10 &&
                  rows[0].total == 10 && !strcmp(rows[1].name, "outer") &&
                  rows[1].self == 6 && rows[1].total == 16,
              "%llu samples; %s %llu/%llu", (unsigned long long)all, rows[0].name,
              (unsigned long long)rows[0].self, (unsigned long long)rows[0].total);
    funcs(lv, MODE_WALL, -1, 0, 1, rows, &n);
    cr_expect(!strcmp(rows[0].name, "outer"), "by total: %s first", rows[0].name);
    cr_expect_eq(funcs(lv, MODE_CPU, -1, 0, 0, rows, &n), 8u, "on a CPU: 5 + 3");
    long pa = procs[0].samples == 10 ? (long)procs[0].index : (long)procs[1].index;
    cr_expect_eq(funcs(lv, MODE_WALL, pa, 0, 0, rows, &n), 10u, "one process");
    cr_expect_eq(funcs(lv, MODE_WALL, pa, 4242, 0, rows, &n), 10u, "its thread");
    cr_expect_eq(funcs(lv, MODE_WALL, pa, 7, 0, rows, &n), 0u, "no such thread");

    /* The file grows: only what was appended is read. */
    ticks(&more, 4, 2);
    append(a, &more);
    cr_assert_eq(live_poll(lv), 4u);
    cr_expect_eq(funcs(lv, MODE_WALL, -1, 0, 0, rows, &n), 20u);
    struct live_query since = { .mode = MODE_WALL, .proc = -1, .since_start = 1 };
    uint64_t s;
    live_funcs(lv, &since, rows, 8, &s);
    cr_expect_eq(s, 20u);
    live_free(lv);
    two_files_gone(&tf);
    free(ra.b);
    free(rb2.b);
    free(more.b);
}

/* One image's two time segments (pyprof(5), SEGMENT) are one row, and
 * the process filter takes both. */
Test(live, an_images_segments_are_one_process)
{
    struct two_files tf;
    two_files(&tf, "forged.4242.0000000000001234.000000.zst",
              "forged.4242.0000000000001234.000001.zst");
    const char *dir = tf.dir, *a = tf.a, *b = tf.b;
    struct rb ra = { 0 }, rb2 = { 0 };
    header(&ra);
    rec(&ra, PP_REC_SEGMENT, (uint64_t[]){ 0, 1, 0 }, 3);
    struct rb t = { 0 };
    tables(&t);
    /* the tables without their header: after the SEGMENT record */
    struct rb h = { 0 };
    header(&h);
    put_bytes(&ra, t.b + h.n, t.n - h.n);
    ticks(&ra, 10, 2);
    rec(&ra, PP_REC_END, (uint64_t[]){ 1, PP_END_SEGMENT, 0, 10, 0, 0, 0, 10, 0, 0, 100000000 },
        11);
    append(a, &ra);
    header(&rb2);
    rec(&rb2, PP_REC_SEGMENT, (uint64_t[]){ 1, 1, 1 }, 3);
    put_bytes(&rb2, t.b + h.n, t.n - h.n);
    ticks(&rb2, 6, 1);
    append(b, &rb2);
    struct live *lv = live_new(dir, 5.0);
    cr_assert_eq(live_poll(lv), 16u);
    struct live_proc procs[4];
    cr_assert_eq(live_procs(lv, procs, 4), 1u, "one row for the image's two segments");
    cr_expect(procs[0].samples == 16 && !procs[0].ended && !strcmp(procs[0].state, "running"),
              "%llu samples, %s", (unsigned long long)procs[0].samples, procs[0].state);
    struct live_func rows[8];
    size_t n;
    cr_expect_eq(funcs(lv, MODE_WALL, (long)procs[0].index, 0, 0, rows, &n), 16u,
                 "the process filter takes both segments");
    live_free(lv);
    two_files_gone(&tf);
    free(ra.b);
    free(rb2.b);
    free(t.b);
    free(h.b);
}
