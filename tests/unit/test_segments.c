/*
 * test_segments.c — an image's profile cut into time segments (pyprof(5),
 * SEGMENT) by writer.c, read by pyprof-merge: each segment is a complete
 * profile on its own; the segments named as one image's are read as one
 * profile, its samples, counters and threads the sums and union of
 * theirs; the oldest missing, a damaged one in the middle, or a file of
 * another image named as one of its segments, are said and the rest kept.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/identity.h"
#include "model.h"
#include "pyprof/file_name.h"
#include "pyprof/format.h"
#include "python/codecache.h"
#include "python/pyvm.h"
#include "reader.h"
#include "record/writer.h"
#include "segments.h"

#define TICKS 60

static struct code_info fa = { .qualname = "seg_a", .name = "seg_a",
                               .filename = "/app/a.py", .firstlineno = 1 };
static struct code_info fb = { .qualname = "seg_b", .name = "seg_b",
                               .filename = "/app/b.py", .firstlineno = 1 };
static struct code_info fc = { .qualname = "seg_c", .name = "seg_c",
                               .filename = "/app/c.py", .firstlineno = 1 };

static char dir[64];
static char seg_path[3][8192];

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The newest .zst in the output directory that is not one of those known. */
static void newest(char *out, size_t cap, int known)
{
    DIR *d = opendir(pp_out_dir());
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".zst"))
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%.4095s/%s", pp_out_dir(), e->d_name);
        int seen = 0;
        for (int k = 0; k < known; k++)
            seen |= !strcmp(seg_path[k], p);
        if (!seen)
            snprintf(out, cap, "%s", p);
    }
    closedir(d);
}

/* Segment seq of the image: thread 1 (MainThread) in segments 0 and 1,
 * thread 2 (worker) in all three, thread 3 (late) from segment 1 on; each
 * segment's code a function of its own (seg_a, seg_b, seg_c) under the
 * same outer one, so that a string, code or node id of one segment read
 * as another's would show. */
static void write_segment(uint32_t seq)
{
    char *argv[] = { "python3", "app.py", NULL };
    struct code_info *leaf = seq == 0 ? &fa : seq == 1 ? &fb : &fc;
    struct writer_image img = { .argv = argv, .interval_ns = 10000000, .py_version = "3.12.1",
                                .segmented = 1, .seq = seq,
                                .threads_before = seq ? 2 + (seq > 1) : 0,
                                .image_start_ns = seq ? 1000 : 0 };
    cr_assert_eq(writer_open(&img), 0);
    uint64_t t0 = mono();
    if (seq < 2)
        writer_thread(1, 4242, "MainThread", NULL);
    writer_thread(2, 4243, "worker", NULL);
    if (seq >= 1)
        writer_thread(3, 4244, "late", NULL);
    struct writer_counters c = { 0 };
    for (int t = 0; t < TICKS; t++) {
        struct pyvm_frame two[2] = { { leaf, 2, 0 }, { &fa, 1, 0 } };
        struct pyvm_thread a = { .tstate = 1, .native_tid = 4242, .depth = 2, .frames = two };
        writer_tick_begin(t0 + (uint64_t)t * 10000000ULL);
        if (seq < 2) {
            writer_sample(1, &a, 0);
            c.samples++;
        }
        writer_sample(2, &a, PP_SAMPLE_ON_CPU);
        c.samples++;
        if (seq >= 1) {
            writer_sample(3, &a, 0);
            c.samples++;
        }
        writer_tick_end();
        c.ticks++;
        if (t % 20 == 19)
            writer_flush(&c);
    }
    c.missed = 1 + seq;
    c.sampler_cpu_ns = 1000000;
    writer_end(seq < 2 ? PP_END_SEGMENT : PP_END_EXIT, 0, &c);
    newest(seg_path[seq], sizeof seg_path[seq], (int)seq);
}

static uint64_t samples_of(uint32_t seq)
{
    return TICKS * (uint64_t)(seq == 1 ? 3 : 2);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pyprof-unit.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(pp_out_dir(), PATH_MAX, "%s", dir);
    pp_config.hz = 100;
    pp_state.pid = 777;
    pp_state.ppid = 1;
    pp_state.uid = 0x1234abcd5678ef90ULL;
    pp_state.parent_uid = 0;
    pp_state.started_by = PP_START_ROOT;
    cr_assert_eq(writer_init(), 0);
    for (uint32_t s = 0; s < 3; s++)
        write_segment(s);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(segments, .init = setup, .fini = teardown);

Test(segments, each_segment_is_a_complete_profile_on_its_own)
{
    for (uint32_t s = 0; s < 3; s++) {
        char want[64];
        snprintf(want, sizeof want, ".777.1234abcd5678ef90.%06u.zst", s);
        cr_expect(strstr(seg_path[s], want), "segment %u is named %s", s, seg_path[s]);
        struct rd_file *f = rd_read(seg_path[s]);
        cr_expect_null(f->problem, "segment %u alone: %s", s, f->problem);
        cr_expect(f->complete && f->segmented && f->seg_first == s && f->seg_last == s);
        cr_expect_eq(f->samples, samples_of(s), "segment %u: %llu samples", s,
                     (unsigned long long)f->samples);
        cr_expect_eq(f->end_how, s < 2 ? PP_END_SEGMENT : PP_END_EXIT);
        cr_expect_eq(f->counters.ticks, TICKS, "a segment counts from its own start");
        rd_free(f);
    }
}

static uint64_t count_of(const struct rd_file *f, uint32_t thread, const char *leaf)
{
    uint64_t n = 0;
    for (size_t i = 0; i < f->counts_used; i++) {
        const struct rd_count *c = &f->counts[i];
        const struct rd_code *k = &f->codes[f->nodes[c->leaf].code];
        if (c->thread == thread && !strcmp(rd_string(f, k->qualname), leaf))
            n += c->count;
    }
    return n;
}

Test(segments, an_images_segments_read_as_one_profile)
{
    struct rd_ctx *x = rd_ctx_new();
    char *paths[3] = { seg_path[0], seg_path[1], seg_path[2] };
    struct rd_file *f = rd_read_chain(x, paths, 3, NULL);
    cr_assert_null(f->problem, "%s", f->problem);
    cr_expect(f->complete && f->end_how == PP_END_EXIT && f->nsegs == 3 &&
              f->seg_first == 0 && f->seg_last == 2 && f->image_start_ns > 0);
    cr_expect_eq(f->samples, samples_of(0) + samples_of(1) + samples_of(2));
    cr_expect_eq(f->counters.ticks, 3 * TICKS);
    cr_expect_eq(f->counters.missed, 1 + 2 + 3);
    cr_expect_eq(f->counters.sampler_cpu_ns, 3000000);
    cr_expect_eq(f->counters.samples, f->samples);
    cr_expect(f->nthreads > 3 && !strcmp(f->threads[1].name, "MainThread") &&
              !strcmp(f->threads[2].name, "worker") && !strcmp(f->threads[3].name, "late"));
    /* each segment's samples under its own function */
    cr_expect_eq(count_of(f, 1, "seg_a"), TICKS);
    cr_expect_eq(count_of(f, 1, "seg_b"), TICKS);
    cr_expect_eq(count_of(f, 2, "seg_c"), TICKS);
    cr_expect_eq(count_of(f, 3, "seg_b") + count_of(f, 3, "seg_c"), 2 * TICKS);
    rd_free(f);
    rd_ctx_free(x);
}

Test(segments, merge_groups_segments_by_name_and_the_model_has_one_process)
{
    char other[] = "/tmp/x/python3.12.778.00000000000000aa.zst";
    char *given[5] = { seg_path[2], other, seg_path[0], seg_path[1], seg_path[0] };
    struct seg_chain *c;
    size_t n = segments_group(given, 5, &c);
    cr_assert_eq(n, 3, "%zu chains", n);
    cr_expect(c[0].n == 3 && c[0].paths[0] == given[2] && c[0].paths[1] == given[3] &&
              c[0].paths[2] == given[0],
              "the image's segments in their order, where the first of them was given");
    cr_expect(c[1].n == 1 && c[1].paths[0] == given[1]);
    cr_expect(c[2].n == 1 && c[2].paths[0] == given[4],
              "a segment given twice is read again on its own");
    segments_free(c, n);

    struct m_options mo = { .mode = MODE_WALL };
    char *files[3] = { seg_path[0], seg_path[1], seg_path[2] };
    struct model *m = model_build(files, 3, &mo, 1);
    cr_assert_eq(m->nprocs, 1, "%zu processes", m->nprocs);
    cr_expect_eq(m->nproblems, 0);
    cr_expect_eq(m->samples, samples_of(0) + samples_of(1) + samples_of(2));
    char exit[64];
    model_exit_str(&m->procs[0], exit, sizeof exit);
    cr_expect_str_eq(exit, "exit 0");
    model_free(m);
}

/* Deleted by a bounded run, given or not: no problem, the rest whole
 * (a segment deleted after the directory was listed is given). */
Test(segments, the_oldest_deleted_the_rest_is_whole)
{
    unlink(seg_path[0]);
    char *files[3] = { seg_path[1], seg_path[2], seg_path[0] };
    struct m_options mo = { .mode = MODE_WALL };
    for (size_t given = 2; given <= 3; given++) {
        struct model *m = model_build(files, given, &mo, 1);
        cr_assert_eq(m->nprocs, 1);
        cr_expect_eq(m->nproblems, 0, "%s", m->nproblems ? m->problems[0].error : "");
        cr_expect(m->procs[0].f->complete && m->procs[0].f->seg_first == 1 &&
                  !strcmp(m->procs[0].f->path, seg_path[1]));
        cr_expect_eq(m->samples, samples_of(1) + samples_of(2));
        model_free(m);
    }
}

Test(segments, one_gone_from_the_middle_or_the_end_is_no_damage)
{
    char *files[3] = { seg_path[0], seg_path[1], seg_path[2] };
    struct m_options mo = { .mode = MODE_WALL };
    unlink(seg_path[1]);
    struct model *m = model_build(files, 3, &mo, 1);
    cr_assert_eq(m->nprocs, 1);
    cr_expect_eq(m->nproblems, 0);
    cr_expect(m->procs[0].f->complete && m->procs[0].f->end_how == PP_END_EXIT);
    cr_expect_eq(m->samples, samples_of(0) + samples_of(2));
    model_free(m);
    unlink(seg_path[2]);
    m = model_build(files, 3, &mo, 1);
    cr_assert_eq(m->nprocs, 1);
    cr_expect(m->nproblems == 0 && m->procs[0].f->complete &&
              m->procs[0].f->end_how == PP_END_SEGMENT,
              "the last one read ends it: it goes on");
    model_free(m);
}

Test(segments, a_damaged_segment_keeps_what_it_had_and_the_next_is_read)
{
    struct stat st;
    cr_assert_eq(stat(seg_path[1], &st), 0);
    /* cut where the segment alone keeps some of its samples, not all */
    off_t cut = st.st_size;
    uint64_t alone = samples_of(1);
    while (cut > 16 && (alone == samples_of(1) || alone == 0)) {
        cut -= 8;
        cr_assert_eq(truncate(seg_path[1], cut), 0);
        struct rd_file *g = rd_read(seg_path[1]);
        alone = g->samples;
        rd_free(g);
    }
    cr_assert(alone > 0 && alone < samples_of(1), "no cut keeps part of the segment");
    struct rd_ctx *x = rd_ctx_new();
    char *paths[3] = { seg_path[0], seg_path[1], seg_path[2] };
    struct rd_file *f = rd_read_chain(x, paths, 3, NULL);
    cr_expect(f->problem && strstr(f->problem, "truncated"), "%s", f->problem);
    cr_expect(f->problem_path && !strcmp(f->problem_path, seg_path[1]),
              "the problem names %s", f->problem_path);
    cr_expect(f->complete && f->end_how == PP_END_EXIT, "the last segment ends the image");
    cr_expect_eq(count_of(f, 2, "seg_c"), TICKS);
    cr_expect(f->samples == samples_of(0) + alone + samples_of(2),
              "%llu samples: segment 1 kept part of its own",
              (unsigned long long)f->samples);
    rd_free(f);
    rd_ctx_free(x);
}

Test(segments, another_images_file_is_not_taken_for_a_segment)
{
    /* the same image id, another pid: written, then renamed to segment 1 */
    pp_state.pid = 779;
    char *argv[] = { "python3", NULL };
    struct writer_image img = { .argv = argv, .interval_ns = 10000000, .py_version = "3.12.1",
                                .segmented = 1, .seq = 1, .threads_before = 2,
                                .image_start_ns = 1000 };
    cr_assert_eq(writer_open(&img), 0);
    writer_thread(1, 1, "MainThread", NULL);
    struct writer_counters c = { 0 };
    writer_end(PP_END_SEGMENT, 0, &c);
    char foreign[8192];
    newest(foreign, sizeof foreign, 3);
    cr_assert_eq(rename(foreign, seg_path[1]), 0);
    struct rd_ctx *x = rd_ctx_new();
    char *paths[3] = { seg_path[0], seg_path[1], seg_path[2] };
    struct rd_file *f = rd_read_chain(x, paths, 3, NULL);
    cr_expect(f->problem && strstr(f->problem, "not a segment of the process"), "%s",
              f->problem);
    cr_expect(f->pid == 777 && f->complete);
    cr_expect_eq(f->samples, samples_of(0) + samples_of(2));
    rd_free(f);
    rd_ctx_free(x);
}

/* The writer names its files by hand (no printf in a fork child's path):
 * what it writes is what snprintf wrote before, and what the readers
 * parse back. */
Test(segments, a_file_name_formatted_by_hand_is_printfs_and_parses_back)
{
    struct { long pid; uint64_t image; int segment; uint32_t seq; } cases[] = {
        { 1, 0, 0, 0 },
        { 4194304, 0x0123456789abcdefULL, 0, 0 },
        { 77, UINT64_MAX, 1, 0 },
        { 12345, 0xfedcba9876543210ULL, 1, 42 },
        { 9, 1, 1, 4294967295u },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[256], want[256];
        cr_assert_eq(pp_file_name_format(got, sizeof got, "/tmp/out", "python3.12",
                                         cases[i].pid, cases[i].image,
                                         cases[i].segment, cases[i].seq), 0);
        if (cases[i].segment)
            snprintf(want, sizeof want, "/tmp/out/python3.12.%ld.%016llx.%06u.zst",
                     cases[i].pid, (unsigned long long)cases[i].image, cases[i].seq);
        else
            snprintf(want, sizeof want, "/tmp/out/python3.12.%ld.%016llx.zst",
                     cases[i].pid, (unsigned long long)cases[i].image);
        cr_expect_str_eq(got, want);
        struct pp_file_name n;
        cr_assert(pp_file_name_parse(strrchr(got, '/') + 1, &n), "%s", got);
        cr_expect_eq(n.pid, cases[i].pid);
        cr_expect_eq(n.image, cases[i].image);
        cr_expect_eq(n.segment, cases[i].segment);
        cr_expect_eq(n.seq, cases[i].seq);
    }
    /* One byte short of the name and its NUL: refused, and empty. */
    char small[64];
    size_t need = strlen("/d/p.5.0000000000000000.zst") + 1;
    cr_expect_eq(pp_file_name_format(small, need, "/d", "p", 5, 0, 0, 0), 0);
    cr_expect_eq(pp_file_name_format(small, need - 1, "/d", "p", 5, 0, 0, 0), -1);
    cr_expect_str_eq(small, "");
}
