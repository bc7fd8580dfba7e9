/*
 * test_timeline.c — the time-ordered formats on files written by hand
 * with known tick times: a sample lasts until the file's next tick (the
 * last one for the interval), time without a sample kept in the report's
 * mode is a gap, and speedscope's weights and the Gecko profile's sample
 * times say exactly that; a long file comes back whole through the spool.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forge.h"
#include "model.h"
#include "output.h"
#include "report_of.h"
#include "timeline.h"

/* outer (/x.py:1) calls inner (/x.py:5); node 1 is outer at line 2, node 2
 * inner at line 6 under it.  Ticks at 1, 3, 6 and 10 ms:
 *   MainThread: inner (cpu), inner (cpu), outer (off cpu), inner (cpu)
 *   worker:     outer (off cpu), -, outer (cpu), - */
static const char *two_threads(void)
{
    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "outer");
    rec_str(&raw, PP_REC_STRING, 2, "/x.py");
    rec_str(&raw, PP_REC_STRING, 3, "inner");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 2, 3, 2, 5, 3 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, pp_zigzag(2) }, 4);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 2, 1, 2, pp_zigzag(6) }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec_str(&raw, PP_REC_THREAD, 2, "worker");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000000, 1, 2, 1, 2, 1, 0 }, 7);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 2000000, 1, 2, 1 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 3000000, 1, 1, 0, 2, 1, 1 }, 7);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 4000000, 1, 2, 1 }, 4);
    const char *path = to_file(&raw);
    free(raw.b);
    return path;
}

/* A header, outer (/x.py:1) as code 1 with node 1 at its line 2, and
 * thread 1, MainThread. */
static void outer_only(struct rb *raw)
{
    header(raw);
    rec_str(raw, PP_REC_STRING, 1, "outer");
    rec_str(raw, PP_REC_STRING, 2, "/x.py");
    rec(raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 1, 1 }, 5);
    rec(raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, pp_zigzag(2) }, 4);
    rec_str(raw, PP_REC_THREAD, 1, "MainThread");
}

static void has(const char *doc, const char *want)
{
    cr_assert(strstr(doc, want), "expected %s in:\n%s", want, doc);
}

Test(timeline, speedscope_weights_are_the_times_between_ticks)
{
    const char *path = two_threads();
    char *doc = report_of(path, MODE_WALL, GROUP_NONE, out_speedscope);
    /* frames: outer is function 0, inner 1 */
    has(doc, "{\"name\": \"outer\", \"file\": \"/x.py\", \"line\": 1}");
    has(doc, "{\"name\": \"inner\", \"file\": \"/x.py\", \"line\": 5}");
    has(doc, "MainThread (tid 4242, 4 samples)\", \"unit\": \"nanoseconds\", "
             "\"startValue\": 1000000, \"endValue\": 20000000");
    has(doc, "\"samples\": [[0,1],[0,1],[0],[0,1]],\n   \"weights\": "
             "[2000000,3000000,4000000,10000000]");
    /* the worker's missing sample at 3 ms is a gap until its next one */
    has(doc, "worker (tid 4242, 2 samples)\", \"unit\": \"nanoseconds\", "
             "\"startValue\": 1000000, \"endValue\": 10000000");
    has(doc, "\"samples\": [[0],[],[0]],\n   \"weights\": [2000000,3000000,4000000]");
    has(doc, "\"activeProfileIndex\": 0");
    free(doc);
    unlink(path);
}

Test(timeline, speedscope_in_cpu_mode_shows_off_cpu_time_as_gaps)
{
    const char *path = two_threads();
    char *doc = report_of(path, MODE_CPU, GROUP_NONE, out_speedscope);
    has(doc, "\"samples\": [[0,1],[0,1],[],[0,1]],\n   \"weights\": "
             "[2000000,3000000,4000000,10000000]");
    has(doc, "worker (tid 4242, 1 sample)\", \"unit\": \"nanoseconds\", "
             "\"startValue\": 6000000, \"endValue\": 10000000,\n   \"samples\": [[0]],\n"
             "   \"weights\": [4000000]");
    free(doc);
    unlink(path);
}

Test(timeline, gecko_samples_keep_their_tick_times_and_gaps_have_no_stack)
{
    const char *path = two_threads();
    char *doc = report_of(path, MODE_WALL, GROUP_NONE, out_gecko);
    has(doc, "\"startTime\": 1700000000000.000");
    has(doc, "\"data\": [[1,1.000,0],[1,3.000,0],[0,6.000,0],[1,10.000,0]]");
    has(doc, "\"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, "
             "\"data\": [[null,0],[0,1]]}");
    has(doc, "\"data\": [[0,false,0,null,2,null,0,0],[1,false,0,null,6,null,0,0]]}");
    has(doc, "\"stringTable\": [\"outer (/x.py:1)\",\"inner (/x.py:5)\"]");
    /* the worker: its own tables, with only what its samples use */
    has(doc, "\"data\": [[0,1.000,0],[null,3.000,0],[0,6.000,0]]}");
    has(doc, "\"data\": [[null,0]]}");
    has(doc, "\"stringTable\": [\"outer (/x.py:1)\"]");
    has(doc, "\"processName\": \"forged.py (pid 4242)\", \"tid\": 4242, \"pid\": 4242, "
             "\"registerTime\": 1.000");
    free(doc);
    unlink(path);
}

/* CPU time of missed deadlines (a CPU_EXTRA record after the tick at
 * 6 ms: two more samples of MainThread's outer) is, in CPU mode, two
 * samples of no duration before that tick's sample: the weights still tile
 * the thread's time, and the samples are those the other formats count.
 * Wall mode does not show them. */
Test(timeline, cpu_time_of_missed_deadlines_is_samples_of_no_duration_in_cpu_mode)
{
    struct rb raw = { 0 };
    outer_only(&raw);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000000, 1, 1, 1 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 5000000, 1, 1, 1 }, 4);
    rec(&raw, PP_REC_CPU_EXTRA, (uint64_t[]){ 1, 1, 1, 2 }, 4);
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000000, 1, 1, 1 }, 4);
    const char *path = to_file(&raw);
    char *doc = report_of(path, MODE_CPU, GROUP_NONE, out_speedscope);
    has(doc, "MainThread (tid 4242, 5 samples)");
    has(doc, "\"samples\": [[0],[0],[0],[0],[0]],\n   \"weights\": "
             "[5000000,0,0,1000000,10000000]");
    free(doc);
    doc = report_of(path, MODE_WALL, GROUP_NONE, out_speedscope);
    has(doc, "\"samples\": [[0],[0],[0]],\n   \"weights\": "
             "[5000000,1000000,10000000]");
    free(doc);
    doc = report_of(path, MODE_CPU, GROUP_NONE, out_gecko);
    has(doc, "\"data\": [[0,1.000,0],[0,6.000,0],[0,6.000,0],[0,6.000,0],[0,7.000,0]]");
    free(doc);
    unlink(path);
    free(raw.b);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

Test(timeline, a_long_thread_comes_back_whole_through_the_spool)
{
    struct rb raw = { 0 };
    outer_only(&raw);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 2, 0, 1, pp_zigzag(3) }, 4);
    enum { TICKS = 50000 };
    for (uint64_t i = 0; i < TICKS; i++)
        rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000, 1, 1 + i % 2, 1 }, 4);
    const char *path = to_file(&raw);
    free(raw.b);
    char *doc = report_of(path, MODE_WALL, GROUP_NONE, out_speedscope);
    cr_assert_eq(count(doc, "[0]"), TICKS, "%zu samples", count(doc, "[0]"));
    /* 1 us each, the last one the interval: 10000000 */
    cr_assert_eq(count(strstr(doc, "\"weights\""), "1000"), TICKS);
    cr_assert(strstr(doc, ",10000000]"));
    free(doc);
    doc = report_of(path, MODE_WALL, GROUP_NONE, out_gecko);
    /* every sample, two frames and the stack [null,0] end so */
    cr_assert_eq(count(doc, ",0]"), TICKS + 3, "%zu", count(doc, ",0]"));
    has(doc, "[1,50.000,0]]");
    free(doc);
    unlink(path);
}

/* The file is replaced between the model's reading and the writer's: by
 * the first ticks of itself, then by a file of other functions. */
Test(timeline, a_file_replaced_between_the_readings_shows_what_is_read_again)
{
    const char *path = two_threads();
    char first[64];
    snprintf(first, sizeof first, "%s", path);
    char *paths[] = { first };
    struct m_options mo = { .mode = MODE_WALL };
    struct model *m = model_build(paths, 1, &mo, 1);
    cr_assert_not_null(m);

    struct rb raw = { 0 };
    header(&raw);
    rec_str(&raw, PP_REC_STRING, 1, "other");
    rec_str(&raw, PP_REC_STRING, 2, "/y.py");
    rec(&raw, PP_REC_CODE, (uint64_t[]){ 1, 1, 2, 7, 1 }, 5);
    rec(&raw, PP_REC_NODE, (uint64_t[]){ 1, 0, 1, pp_zigzag(8) }, 4);
    rec_str(&raw, PP_REC_THREAD, 1, "MainThread");
    rec(&raw, PP_REC_TICK, (uint64_t[]){ 1000000, 1, 1, 1 }, 4);
    cr_assert_eq(rename(to_file(&raw), first), 0);
    free(raw.b);

    char *doc = report_of_model(m, GROUP_NONE, out_speedscope, NULL);
    /* the other function is not one of the report's: no frame for it */
    has(doc, "MainThread (tid 4242, 1 sample)\", \"unit\": \"nanoseconds\", "
             "\"startValue\": 1000000, \"endValue\": 11000000,\n   \"samples\": [[]]");
    has(doc, "worker (tid 4242, 0 samples)");
    free(doc);
    doc = report_of_model(m, GROUP_NONE, out_gecko, NULL);
    has(doc, "\"stringTable\": [\"other (/y.py:7)\"]");
    free(doc);
    model_free(m);
    unlink(first);
}

Test(timeline, a_spool_that_cannot_be_made_names_its_directory)
{
    const char *path = two_threads();
    char log[] = "/tmp/pyprof-stderr.XXXXXX";
    int lfd = mkstemp(log);
    cr_assert_geq(lfd, 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(lfd, 2);
    setenv("TMPDIR", "/nonexistent/pyprof-tmp", 1);
    char *paths[] = { (char *)path };
    struct m_options mo = { .mode = MODE_WALL };
    struct model *m = model_build(paths, 1, &mo, 1);
    struct tl_proc *t = tl_read(m, 0);
    unsetenv("TMPDIR");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert_null(t);
    char buf[512] = "";
    ssize_t n = pread(lfd, buf, sizeof buf - 1, 0);
    cr_assert_gt(n, 0);
    has(buf, "cannot make a temporary file in /nonexistent/pyprof-tmp ($TMPDIR): "
             "No such file or directory");
    model_free(m);
    close(lfd);
    unlink(log);
    unlink(path);
}
