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
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "model.h"
#include "output.h"
#include "pyprof/format.h"
#include "reader.h"
#include "forge.h"
#include "report_of.h"

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
    cr_assert_eq(out_pstats(o, m, &oo), 0);
    cr_assert_eq(out_lines(o, m, &oo), 0);
    cr_assert_eq(out_speedscope(o, m, &oo), 0);
    cr_assert_eq(out_gecko(o, m, &oo), 0);
    model_free(m);
    mo.all_modes = 1;
    m = model_build(paths, 1, &mo, 1);
    cr_assert_not_null(m);
    cr_assert_eq(out_pprof(o, m, &oo), 0);
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
                                               "import\tos\x01\n\tprint(1)" });
    const char *path = to_file(&raw);
    char *txt = report_of(path, MODE_WALL, GROUP_NONE, out_text);
    const char *row = strstr(txt, "4242 ");
    cr_assert_not_null(row, "no row for pid 4242:\n%s", txt);
    const char *eol = strchr(row, '\n');
    cr_assert_not_null(eol);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(eol - row), row);
    /* COMMAND is the process's label: the code's first line, cut */
    cr_assert(strstr(line, "-c import\\tos\\x01\xe2\x80\xa6"),
              "the command is not on its row, escaped: \"%s\"\n%s", line, txt);
    cr_assert_null(strstr(txt, "\tprint"), "a raw tab from argv:\n%s", txt);
    free(txt);
    unlink(path);
    free(raw.b);
}

/* A function whose qualname and file hold a newline, a tab and an escape
 * sequence: on their one line of each table, escaped as the process
 * tree's COMMAND is (pyprof-merge(1)), nothing raw for a terminal. */
Test(forged, control_bytes_in_names_are_escaped_in_the_text_and_lines_reports)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "f\n\tg\x1b[2J");
    rec_str(&raw, PP_REC_STRING, 2, "/nonexistent/x\ny.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    static const char shown[] = "f\\n\\tg\\x1b[2J";
    static const char file[] = "/nonexistent/x\\ny.py";

    char *txt = report_of(path, MODE_WALL, GROUP_NONE, out_text);
    char row[256];
    snprintf(row, sizeof row, "100.0%%     0.010  %s (%s:1)\n", shown, file);
    cr_assert(strstr(txt, row), "no escaped row \"%s\" in:\n%s", row, txt);
    cr_assert_null(strchr(txt, '\x1b'), "a raw escape byte:\n%s", txt);
    cr_assert_null(strstr(txt, "\tg"), "a raw tab:\n%s", txt);
    free(txt);

    char *ln = report_of(path, MODE_WALL, GROUP_NONE, out_lines);
    char head[256], unread[256];
    snprintf(head, sizeof head, "\nFunction: %s at %s:1\n", shown, file);
    snprintf(unread, sizeof unread, "\n(source not readable: %s)\n", file);
    cr_assert(strstr(ln, head), "no escaped header \"%s\" in:\n%s", head, ln);
    cr_assert(strstr(ln, unread), "no escaped \"%s\" in:\n%s", unread, ln);
    cr_assert_null(strchr(ln, '\x1b'), "a raw escape byte:\n%s", ln);
    free(ln);
    unlink(path);
    free(raw.b);
}

/* The int32 after the first occurrence of `what` (len bytes) plus skip
 * bytes in buf of n bytes; -1 when it is not there. */
static long i32_after(const char *buf, size_t n, const char *what, size_t len,
                      size_t skip)
{
    for (size_t i = 0; i + len + skip + 4 <= n; i++)
        if (!memcmp(buf + i, what, len)) {
            const unsigned char *p = (const unsigned char *)buf + i + len + skip;
            return (long)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                          (uint32_t)p[3] << 24);
        }
    return -1;
}

Test(forged, a_recursive_stack_counts_once_in_pstats_and_per_line_in_lines)
{
    /* rec (line 2) -> rec (line 2) -> rec (line 3), 5 samples, from a file
     * that does not exist */
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "rec");
    rec_str(&raw, PP_REC_STRING, 2, "/nonexistent/r\xff.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    /* lines zigzag-coded: 4 is line 2, 6 line 3 */
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 4 }, 4);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 2, 1, 1, 4 }, 4);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 3, 2, 1, 6 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    for (int i = 0; i < 5; i++)
        rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 3, 0 }, 4);
    const char *path = to_file(&raw);

    /* pstats: the key's funcname, then (cc, nc, ...) as marshal ints:
     * cc 5 (once per sample), nc 15 (every frame); the caller entry rec
     * -> rec has nc 10, cc 5.  The file name is valid UTF-8. */
    char *paths[] = { (char *)path };
    size_t n = 0;
    char *ps = report_of_files_n(paths, 1, MODE_WALL, GROUP_NONE, out_pstats, &n);
    static const char key[] = "u\x03\0\0\0rec(\x05\0\0\0i";
    cr_assert_eq(i32_after(ps, n, key, sizeof key - 1, 0), 5, "cc");
    cr_assert_eq(i32_after(ps, n, key, sizeof key - 1, 5), 15, "nc");
    static const char caller[] = "u\x03\0\0\0rec(\x04\0\0\0i";
    cr_assert_eq(i32_after(ps, n, caller, sizeof caller - 1, 0), 10, "caller nc");
    cr_assert_eq(i32_after(ps, n, caller, sizeof caller - 1, 5), 5, "caller cc");
    cr_assert(memmem(ps, n, "r\xef\xbf\xbd.py", 6), "the bad byte is not U+FFFD");
    cr_assert_null(memchr(ps, 0xff, n), "a raw 0xff byte in the marshal");
    /* cumtime is 5 samples at 10 ms, not 15: the double after tt */
    const char *c = memmem(ps, n, key, sizeof key - 1);
    double ct;
    cr_assert_eq(c[sizeof key - 1 + 4 + 5 + 9], 'g');
    memcpy(&ct, c + sizeof key - 1 + 4 + 5 + 9 + 1, sizeof ct);
    cr_assert_float_eq(ct, 0.05, 1e-12, "cumtime %f", ct);
    free(ps);

    /* lines: no source, but the lines with their counts */
    char *ln = report_of(path, MODE_WALL, GROUP_NONE, out_lines);
    cr_assert(strstr(ln, "(source not readable: /nonexistent/r\xff.py)"), "%s", ln);
    cr_assert(strstr(ln, "\n      2          5          0   100.0  \n"), "%s", ln);
    cr_assert(strstr(ln, "\n      3          5          5   100.0  \n"), "%s", ln);
    free(ln);
    unlink(path);
    free(raw.b);
}

/* A profile of one sample in f (first line 1 of src) at line `line`. */
static const char *one_sample_in(const char *src, int64_t line)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "f");
    rec_str(&raw, PP_REC_STRING, 2, src);
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, pp_zigzag(line) }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    free(raw.b);
    return path;
}

Test(forged, a_source_path_that_names_a_fifo_is_not_opened_for_the_lines_report,
     .timeout = 20)
{
    char fifo[] = "/tmp/pyprof-fifo.XXXXXX";
    cr_assert_not_null(mkdtemp(fifo));
    char path_py[64];
    snprintf(path_py, sizeof path_py, "%s/f.py", fifo);
    cr_assert_eq(mkfifo(path_py, 0600), 0);
    const char *path = one_sample_in(path_py, 2);
    /* opening the FIFO for reading would wait for a writer forever */
    char *ln = report_of(path, MODE_WALL, GROUP_NONE, out_lines);
    cr_assert(strstr(ln, "(source not readable: "), "%s", ln);
    cr_assert(strstr(ln, "\n      2          1          1   100.0  \n"), "%s", ln);
    free(ln);
    unlink(path);
    unlink(path_py);
    rmdir(fifo);
}

Test(forged, a_source_is_read_no_further_than_64_mib_for_the_lines_report)
{
    /* line 1, then one line of 64 MiB (a hole: no disk), then the sampled
     * line 3: a profile may name any file, with any line number */
    char dir[] = "/tmp/pyprof-big.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path_py[64];
    snprintf(path_py, sizeof path_py, "%s/big.py", dir);
    FILE *src = fopen(path_py, "w");
    cr_assert_not_null(src);
    fputs("def f():\n", src);
    cr_assert_eq(fseek(src, 64L << 20, SEEK_SET), 0);
    fputs("\n    far = 'beyond the cap'\n", src);
    cr_assert_eq(fclose(src), 0);
    const char *path = one_sample_in(path_py, 3);
    char *ln = report_of(path, MODE_WALL, GROUP_NONE, out_lines);
    cr_assert(strstr(ln, "\n      1                                def f():\n"), "%s", ln);
    cr_assert(strstr(ln, "\n      3          1          1   100.0  \n"), "%s", ln);
    cr_assert_null(strstr(ln, "beyond the cap"), "%s", ln);
    free(ln);
    unlink(path);
    unlink(path_py);
    rmdir(dir);
}

Test(forged, a_span_past_the_end_of_time_is_capped_not_wrapped)
{
    /* an END whose monotonic span runs past 2^64 ns from the start: the
     * tree lasts until the largest time the formats hold (int64 ns), it
     * does not wrap to nothing */
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "f");
    rec_str(&raw, PP_REC_STRING, 2, "f.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 4 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    rec(&raw, PP_REC_END, (uint64_t[]){ 1700000000000000000ULL, PP_END_EXIT, 0,
                                        1, 0, 0, 0, 1, 0, 0, UINT64_MAX - 1 }, 11);
    const char *path = to_file(&raw);
    char *text = report_of(path, MODE_WALL, GROUP_NONE, out_text);
    /* (INT64_MAX - the header's start) ns */
    cr_assert(strstr(text, "duration        7523372036.85 s"), "%s", text);
    free(text);
    free(raw.b);
    unlink(path);
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

/* One TITLE record holding s. */
static void rec_bytes_title(struct rb *raw, const char *s)
{
    struct rb p = { 0 };
    put_s(&p, s);
    uint8_t k = PP_REC_TITLE;
    put_bytes(raw, &k, 1);
    put_v(raw, p.n);
    put_bytes(raw, p.b, p.n);
    free(p.b);
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

/* The HTML page: a name cannot end the page's script elements, and the
 * model built for it keeps each mode's count of every stack. */
Test(forged, names_that_close_a_script_element_stay_inside_the_html_data)
{
    struct rb raw = { 0 };
    header_argv(&raw, 2, (const char *const[]){ "x.py", "</script><script>alert(1)</script>" });
    rec_str(&raw, PP_REC_STRING, 1, "</script><!--f");
    rec_str(&raw, PP_REC_STRING, 2, "/nonexistent/</SCRIPT>.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "</script>");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, PP_SAMPLE_ON_CPU | PP_SAMPLE_HOLDS_GIL }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, PP_SAMPLE_ON_CPU }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    char *paths[] = { (char *)path };
    struct m_options mo = { .mode = MODE_CPU, .all_modes = 1 };
    struct model *m = model_build(paths, 1, &mo, 1);
    cr_assert_not_null(m);
    cr_assert_eq(m->samples, 2u, "cpu mode counts %llu", (unsigned long long)m->samples);
    char *page = report_of_model(m, GROUP_NONE, out_html, NULL);
    model_free(m);
    size_t closes = 0;
    for (const char *c = page; (c = strcasestr(c, "</script")); c++)
        closes++;
    cr_assert_eq(closes, 2u, "the template has two script elements, the page %zu", closes);
    cr_assert_null(strstr(page, "<!--"), "a comment opener in the page");
    cr_assert(strstr(page, "\\u003c/script>\\u003c!--f"), "the name is not in the data");
    cr_assert(strstr(page, "\"samples\":[3,2,1,0,3]"), "wall, cpu, gil, exception, tasks "
              "counts: %.300s", strstr(page, "\"samples\""));
    free(page);
    unlink(path);
    free(raw.b);
}

Test(forged, a_nul_byte_in_a_source_line_does_not_shift_the_lines_after_it)
{
    char dir[] = "/tmp/pyprof-nul.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path_py[64];
    snprintf(path_py, sizeof path_py, "%s/nul.py", dir);
    FILE *src = fopen(path_py, "w");
    cr_assert_not_null(src);
    fwrite("def f():\n    a = 1\0 b\n    third = 3\n", 1, 36, src);
    cr_assert_eq(fclose(src), 0);
    const char *path = one_sample_in(path_py, 3);
    char *ln = report_of(path, MODE_WALL, GROUP_NONE, out_lines);
    cr_assert(strstr(ln, "\n      2" "                                    a = 1\n"), "%s", ln);
    cr_assert(strstr(ln, "\n      3          1          1   100.0      third = 3\n"), "%s", ln);
    free(ln);
    unlink(path);
    unlink(path_py);
    rmdir(dir);
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

/* A CPU_EXTRA entry that cannot be one (no stack, a thread never named,
 * a count of 0 or past the format's bound, no CPU flag) is damage; the
 * entries before it count.  A flag byte with the reserved bit set in a
 * TICK is read without it. */
Test(forged, a_cpu_time_record_that_cannot_be_is_damage)
{
    const uint64_t bad[][4] = {
        { 1, 0, 1, 2 }, { 2, 1, 1, 2 }, { 1, 1, 1, 0 },
        { 1, 1, 1, (uint64_t)PP_MAX_CPU_EXTRA + 1 }, { 1, 1, 0, 2 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct rb raw = { 0 };
        one_stack(&raw);
        rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
        /* dt 1000 (two varint bytes), thread 1, leaf 1, flags byte 0x81 */
        put_bytes(&raw, (const uint8_t[]){ PP_REC_TICK, 5, 0xe8, 0x07, 1, 1,
                                          1 | PP_SAMPLE_RESERVED }, 7);
        uint64_t both[8] = { 1, 1, 1, 3, bad[i][0], bad[i][1], bad[i][2], bad[i][3] };
        rec(&raw, PP_REC_CPU_EXTRA, both, 8);
        const char *path = to_file(&raw);
        struct rd_file *f = rd_read(path);
        cr_assert(f->problem && strstr(f->problem, "bad CPU time record"),
                  "case %zu: %s", i, f->problem);
        cr_assert_eq(f->samples, 1u);
        cr_assert_eq(f->cpu_extra, 3u, "case %zu: the good entry before the bad one "
                     "counts", i);
        for (size_t k = 0; k < f->counts_cap; k++)
            if (f->counts[k].count == 1)
                cr_assert_eq(f->counts[k].flags, PP_SAMPLE_ON_CPU,
                             "a TICK's reserved bit is the reader's, not the file's");
        rd_free(f);
        all_reports(path);
        unlink(path);
        free(raw.b);
    }
}

/* TASK_WAIT records: each entry counts its count in the tasks mode alone
 * (with every TICK sample, as wall does), and not among the file's samples;
 * an entry that cannot be one (no stack, a thread never named, a count of
 * 0 or past the format's bound) is damage, the entries before it kept. */
Test(forged, pending_task_records_count_in_the_tasks_mode_alone)
{
    struct rb raw = { 0 };
    one_stack(&raw);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, PP_SAMPLE_ON_CPU }, 4);
    rec(&raw, PP_REC_TASK_WAIT, (uint64_t[]){ 1, 1, 3, 1, 1, 2 }, 6);
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert_null(f->problem, "%s", f->problem);
    cr_assert_eq(f->samples, 1u);
    cr_assert_eq(f->task_waits, 5u);
    rd_free(f);
    const enum m_mode modes[] = { MODE_WALL, MODE_CPU, MODE_GIL, MODE_EXC, MODE_TASKS };
    const uint64_t want[] = { 1, 1, 0, 0, 6 };
    for (size_t i = 0; i < 5; i++) {
        char *paths[] = { (char *)path };
        struct m_options mo = { .mode = modes[i] };
        struct model *m = model_build(paths, 1, &mo, 1);
        cr_assert_not_null(m);
        cr_assert_eq(m->samples, want[i], "mode %zu counts %llu", i,
                     (unsigned long long)m->samples);
        cr_assert_eq(m->samples_all, 1u, "samples_all %llu", (unsigned long long)m->samples_all);
        model_free(m);
    }
    all_reports(path);
    unlink(path);
    free(raw.b);

    const uint64_t bad[][3] = {
        { 1, 0, 2 }, { 2, 1, 2 }, { 1, 1, 0 }, { 1, 1, (uint64_t)PP_MAX_TASK_WAIT + 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct rb r2 = { 0 };
        one_stack(&r2);
        rec_str(&r2, PP_REC_THREAD, 1, "MainThread");
        rec(&r2, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
        uint64_t both[6] = { 1, 1, 4, bad[i][0], bad[i][1], bad[i][2] };
        rec(&r2, PP_REC_TASK_WAIT, both, 6);
        const char *p2 = to_file(&r2);
        struct rd_file *g = rd_read(p2);
        cr_assert(g->problem && strstr(g->problem, "bad pending-task record"),
                  "case %zu: %s", i, g->problem);
        cr_assert_eq(g->task_waits, 4u, "case %zu: the good entry before the bad one "
                     "counts", i);
        rd_free(g);
        all_reports(p2);
        unlink(p2);
        free(r2.b);
    }
}

/* TITLE records: the last one holds, in one buffer however many come;
 * one whose length disagrees with its record, or past the format's bound,
 * is damage and the title before it stays. */
Test(forged, the_last_title_holds_and_a_bad_one_is_damage)
{
    struct rb raw = { 0 };
    one_stack(&raw);
    for (int i = 0; i < 1000; i++)
        rec_bytes_title(&raw, i % 2 ? "svc: worker [b]" : "svc: worker [a]");
    const char *path = to_file(&raw);
    struct rd_file *f = rd_read(path);
    cr_assert_null(f->problem, "%s", f->problem);
    cr_expect_str_eq(f->title, "svc: worker [b]");
    cr_expect_lt(f->allocated, 64u << 10, "1000 titles took %zu bytes", f->allocated);
    rd_free(f);
    unlink(path);
    /* a length past the record's end */
    uint8_t bad[] = { PP_REC_TITLE, 3, 9, 'a', 'b' };
    put_bytes(&raw, bad, sizeof bad);
    path = to_file(&raw);
    f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "bad title record"), "%s", f->problem);
    cr_expect_str_eq(f->title, "svc: worker [b]");
    rd_free(f);
    all_reports(path);
    unlink(path);
    free(raw.b);
}

/* Seconds in the text report: each sample is its process's interval,
 * so 10 samples at 100 Hz and 100 at 1 kHz of f are 0.2 s, in the
 * function tables, the tree, the threads and the totals. */
Test(forged, the_text_report_gives_seconds_by_each_process_s_interval)
{
    char *paths[2];
    char keep[2][64];
    for (int k = 0; k < 2; k++) {
        struct rb raw = { 0 };
        forge_interval_ns = k ? 1000000 : 10000000;
        one_stack(&raw);
        rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
        for (int i = 0; i < (k ? 100 : 10); i++)
            rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
        snprintf(keep[k], sizeof keep[k], "%s", to_file(&raw));
        paths[k] = keep[k];
        free(raw.b);
    }
    forge_interval_ns = 10000000;
    char *txt = report_of_files(paths, 2, MODE_WALL, GROUP_NONE, out_text);
    cr_expect(strstr(txt, "110 in wall mode (110 in all), 0.20 s of threads' time\n"),
              "%s", txt);
    cr_expect(strstr(txt, "      110 100.0%     0.200      110 100.0%     0.200  f (/x.py:1)"),
              "%s", txt);
    cr_expect(strstr(txt, "       10      0.10 "), "the tree's first process:\n%s", txt);
    cr_expect(strstr(txt, "      100      0.10 "), "the tree's second process:\n%s", txt);
    free(txt);
    unlink(paths[0]);
    unlink(paths[1]);
}

/* A file's start with a pseudo-frame (file ~; its CODE record with
 * boundary appended when that is not 0) called by outer (in /x.py):
 * strings 1-4, codes 1 (outer) and 2 (pseudo), nodes 1 (outer) and 2 (the
 * pseudo-frame above it), thread 1. */
static void outer_and_pseudo(struct rb *raw, const char *outer, const char *pseudo,
                             uint64_t boundary)
{
    header(raw);
    rec_str(raw, PP_REC_STRING, 1, outer);
    rec_str(raw, PP_REC_STRING, 2, "/x.py");
    rec_str(raw, PP_REC_STRING, 3, pseudo);
    rec_str(raw, PP_REC_STRING, 4, "~");
    rec(raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(raw, PP_REC_CODE, (uint64_t[]){ 2, 3, 4, 0, 3, boundary }, boundary ? 6 : 5);
    rec(raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, 2 }, 4);
    rec(raw, PP_REC_NODE, (uint64_t[]){ 2, 1, 2, 0 }, 4);
    rec_str(raw, PP_REC_THREAD, 1, "MainThread");
}

/* The model of the one file at path. */
static struct model *model_of(const char *path, long interp)
{
    char *paths[] = { (char *)path };
    struct m_options mo = { .mode = MODE_WALL, .interp = interp };
    struct model *m = model_build(paths, 1, &mo, 1);
    cr_assert_not_null(m);
    return m;
}

/* The pseudo-frame of an entry into a subinterpreter (a CODE record with
 * its interpreter: pyprof(5)) gives that interpreter to the frames above
 * it; --interpreter keeps only theirs; a forged id past the cap is damage. */
Test(forged, an_entry_into_a_subinterpreter_gives_its_interpreter_to_the_frames_above)
{
    struct rb raw = { 0 };
    outer_and_pseudo(&raw, "caller", "<interpreter 7>", 8);
    rec_str(&raw, PP_REC_STRING, 5, "work");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 3, 5, 2, 9, 5 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 3, 2, 3, 10 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 3, 0 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 3, 0 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    struct model *m = model_of(path, 0);
    cr_assert_eq(m->samples, 3u);
    uint64_t in7 = 0, in0 = 0;
    for (size_t i = 0; i < m->nstacks; i++) {
        uint32_t in = model_stack_interp(m, &m->stacks[i]);
        cr_assert(in == 0 || in == 7, "interpreter %u", in);
        *(in ? &in7 : &in0) += m->stacks[i].count;
    }
    cr_expect_eq(in7, 2u, "%llu samples in interpreter 7", (unsigned long long)in7);
    cr_expect_eq(in0, 1u, "%llu samples in the main one", (unsigned long long)in0);
    model_free(m);
    m = model_of(path, 7 + 1);
    cr_expect_eq(m->samples, 2u, "--interpreter 7: %llu samples",
                 (unsigned long long)m->samples);
    model_free(m);
    m = model_of(path, 0 + 1);
    cr_expect_eq(m->samples, 1u, "--interpreter main: %llu samples",
                 (unsigned long long)m->samples);
    model_free(m);
    all_reports(path);
    unlink(path);
    free(raw.b);

    struct rb bad = { 0 };
    header(&bad);
    rec_str(&bad, PP_REC_STRING, 1, "<interpreter ?>");
    rec(&bad, PP_REC_CODE, (uint64_t[]){ 1, 1, 1, 0, 1, (uint64_t)RD_MAX_INTERP_ID + 2 },
        6);
    path = to_file(&bad);
    struct rd_file *f = rd_read(path);
    cr_assert(f->problem && strstr(f->problem, "bad code record"), "%s", f->problem);
    rd_free(f);
    unlink(path);
    free(bad.b);
}

/* Samples flagged as taken while the cyclic GC ran are counted for the
 * process and the tree (pyprof(5), TICK flag 8). */
Test(forged, samples_taken_in_the_collector_are_counted)
{
    struct rb raw = { 0 };
    outer_and_pseudo(&raw, "collect_now", "<GC>", 0);
    for (int i = 0; i < 3; i++)
        rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 2, PP_SAMPLE_IN_GC }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1, 0 }, 4);
    const char *path = to_file(&raw);
    struct model *m = model_of(path, 0);
    cr_expect_eq(m->in_gc, 3u, "%llu samples in GC", (unsigned long long)m->in_gc);
    cr_expect_eq(m->procs[0].in_gc, 3u);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    struct out_options oo = { .group = GROUP_NONE, .top = 10 };
    cr_assert_eq(out_text(o, m, &oo), 0);
    fclose(o);
    cr_expect(strstr(text, "  in GC           3 samples (75.0 %)"), "%s", text);
    free(text);
    model_free(m);
    unlink(path);
    free(raw.b);
}
