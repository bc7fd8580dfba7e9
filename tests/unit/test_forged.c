/*
 * test_forged.c — files written by hand, record by record, to be what no
 * writer writes: names never defined, ids far ahead of the table, stacks
 * deeper than the format allows.  The reader names the damage, keeps what
 * came before it, and allocates only for what the file really defines;
 * the model and the reports built from what was kept do not crash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "model.h"
#include "output.h"
#include "pyprof/format.h"
#include "reader.h"
#include "report_of.h"

struct rb { uint8_t *b; size_t n, cap; };

static void need(struct rb *r, size_t more)
{
    if (r->n + more <= r->cap)
        return;
    r->cap = (r->n + more) * 2 + 256;
    r->b = realloc(r->b, r->cap);
    cr_assert_not_null(r->b);
}

static void put_v(struct rb *r, uint64_t v)
{
    need(r, 10);
    r->n += pp_put_varint(r->b + r->n, v);
}

static void put_bytes(struct rb *r, const void *p, size_t n)
{
    need(r, n);
    memcpy(r->b + r->n, p, n);
    r->n += n;
}

static void put_s(struct rb *r, const char *s)
{
    put_v(r, strlen(s));
    put_bytes(r, s, strlen(s));
}

/* Appends one record: kind, length, payload (given as varints). */
static void rec(struct rb *out, int kind, const uint64_t *v, size_t n)
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

static void rec_str(struct rb *out, int kind, uint64_t id, const char *s)
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

static void header_argv(struct rb *out, size_t argc, const char *const *argv)
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
    put_v(&p, 10000000);                   /* interval */
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

static void header(struct rb *out)
{
    header_argv(out, 1, (const char *const[]){ "forged.py" });
}

/* Compresses raw records into a file; returns its path. */
static const char *to_file(const struct rb *raw)
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

/* Builds the model of one file and writes every report of it. */
static void all_reports(const char *path)
{
    char *paths[] = { (char *)path };
    struct m_options mo = { .mode = MODE_WALL };
    struct model *m = model_build(paths, 1, &mo, 1);
    cr_assert_not_null(m);
    FILE *o = fopen("/dev/null", "w");
    struct out_options oo = { .group = GROUP_THREAD, .top = 10 };
    cr_assert_eq(out_text(o, m, &oo), 0);
    cr_assert_eq(out_collapsed(o, m, &oo), 0);
    cr_assert_eq(out_json(o, m, &oo), 0);
    fclose(o);
    model_free(m);
}

Test(forged, a_code_whose_names_were_never_defined_is_damage_not_a_crash)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "f");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 0, 0, 1, 0 }, 5);     /* no names */
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "bad code record"), "%s", f->problem);
    cr_assert_eq(f->samples, 0u);
    rd_free(f);
    all_reports(path);
    unlink(path);
    free(raw.b);
}

Test(forged, an_id_far_ahead_of_its_table_allocates_nothing_for_it)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "f");
    rec_str(&raw, PP_REC_STRING, (1u << 25) - 1, "far");
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "out of range"), "%s", f->problem);
    cr_assert_lt(f->allocated, 1u << 20, "%zu bytes allocated for a 2-string file",
                 f->allocated);
    cr_assert_str_eq(rd_string(f, 1), "f", "the string before the damage is kept");
    rd_free(f);
    all_reports(path);
    unlink(path);
    free(raw.b);
}

Test(forged, a_stack_deeper_than_the_format_allows_is_cut_where_it_goes_too_deep)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "rec");
    rec_str(&raw, PP_REC_STRING, 2, "/x.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    for (uint64_t n = 1; n <= PP_MAX_DEPTH; n++) {
        rec(&raw, PP_REC_NODE, (uint64_t[]){ n, n - 1, 1, 2 }, 4);
        rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, n, 0 }, 4);
    }
    rec(&raw, PP_REC_NODE, (uint64_t[]){ PP_MAX_DEPTH + 1, PP_MAX_DEPTH, 1, 2 }, 4);
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "bad stack node"), "%s", f->problem);
    cr_assert_eq(f->samples, PP_MAX_DEPTH, "%llu samples before the damage, "
                 "expected %u", (unsigned long long)f->samples, PP_MAX_DEPTH);
    rd_free(f);
    all_reports(path);
    unlink(path);
    free(raw.b);
}

Test(forged, names_with_separators_and_bad_utf8_keep_every_report_well_formed)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "a;b\nc");
    rec_str(&raw, PP_REC_STRING, 2, "/odd\xff\xfe.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "t;1");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);

    /* one line, three fields (process, thread, the frame), one count */
    char *col = report_of(path, MODE_WALL, GROUP_THREAD, out_collapsed);
    cr_assert_eq(strchr(col, '\n'), col + strlen(col) - 1, "more than one line:\n%s", col);
    size_t semis = 0;
    for (const char *c = col; *c; c++)
        semis += *c == ';';
    cr_assert_eq(semis, 2u, "a name split a frame: %s", col);
    cr_assert(strstr(col, "a:b?c (/odd"), "%s", col);
    cr_assert(strstr(col, " 1\n"), "%s", col);
    free(col);

    /* JSON: escaped, and the bad bytes replaced, so it is UTF-8 */
    char *js = report_of(path, MODE_WALL, GROUP_NONE, out_json);
    cr_assert(strstr(js, "\"a;b\\nc\""), "%.400s", js);
    cr_assert(strstr(js, "/odd\\ufffd\\ufffd.py"), "%.600s", js);
    cr_assert_null(strchr(js, '\xff'), "a raw 0xff byte in the JSON");
    free(js);
    unlink(path);
    free(raw.b);
}

Test(forged, a_command_line_with_newlines_stays_on_its_row_of_the_process_tree)
{
    struct rb raw = { 0 };
    header_argv(&raw, 3, (const char *const[]){ "python3", "-c",
                                               "import os\n\tprint(1)\x01" });
    const char *path = to_file(&raw);
    char *txt = report_of(path, MODE_WALL, GROUP_NONE, out_text);
    const char *row = strstr(txt, "4242 ");
    cr_assert_not_null(row, "no row for pid 4242:\n%s", txt);
    const char *eol = strchr(row, '\n');
    cr_assert_not_null(eol);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(eol - row), row);
    cr_assert(strstr(line, "python3 -c import os\\n\\tprint(1)\\x01"),
              "the command is not on its row, escaped: \"%s\"\n%s", line, txt);
    cr_assert_null(strstr(txt, "\tprint"), "a raw tab from argv:\n%s", txt);
    free(txt);
    unlink(path);
    free(raw.b);
}

/* A header, then one code f (/x.py) and one stack node of it (id 1). */
static void one_stack(struct rb *raw)
{
    header(raw);
    rec_str(raw, PP_REC_STRING, 1, "f");
    rec_str(raw, PP_REC_STRING, 2, "/x.py");
    rec(raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
}

/* A file from before REJECTS records: its share of rejects is still said,
 * without where the threads were. */
Test(forged, many_rejects_in_a_file_without_rejects_records_are_said_without_places)
{
    struct rb raw = { 0 };
    one_stack(&raw);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    /* samples 1, rejected 5, missed 0, cpu 0, ticks 10 */
    rec(&raw, PP_REC_COUNTERS, (uint64_t[]){ 1, 5, 0, 0, 10 }, 5);
    const char *path = to_file(&raw);
    char *text = report_of(path, MODE_WALL, GROUP_NONE, out_text);
    cr_assert(strstr(text, "  [rejected 50.0 % of ticks]\n"), "%s", text);
    free(text);
    unlink(path);
    free(raw.b);
}

Test(forged, rejects_under_a_stack_never_defined_are_damage)
{
    struct rb raw = { 0 };
    one_stack(&raw);
    rec(&raw, PP_REC_REJECTS, (uint64_t[]){ 1, 3, 0, 2 }, 4);
    rec(&raw, PP_REC_REJECTS, (uint64_t[]){ 1, 1, 7, 1 }, 4);
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "rejects refer to an undefined stack"),
              "%s", f->problem);
    cr_assert_eq(f->nrejects, 2u, "the rejects before the damage are kept");
    cr_assert_eq(f->rejects[0].count, 4u);
    rd_free(f);
    all_reports(path);
    unlink(path);
    free(raw.b);
}
