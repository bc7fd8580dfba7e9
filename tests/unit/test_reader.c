/*
 * test_reader.c — the preload's writer and pyprof-merge's reader and model
 * together: a file written by writer.c reads back exactly; a file cut at
 * any byte offset gives back every sample flushed before the cut; empty,
 * foreign and corrupt files are named with what was recovered; the
 * reports say what the file holds.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "python/codecache.h"
#include "base/config.h"
#include "model.h"
#include "output.h"
#include "pyprof/format.h"
#include "python/pyvm.h"
#include "reader.h"
#include "report_of.h"
#include "base/identity.h"
#include "record/writer.h"


#define TICKS 300
#define FLUSH_EVERY 40

static struct code_info outer = { .qualname = "outer", .name = "outer",
                                  .filename = "/app/x.py", .firstlineno = 1 };
static struct code_info inner = { .qualname = "Job.inner", .name = "inner",
                                  .filename = "/app/x.py", .firstlineno = 5 };

/* When nonzero: every reject_every-th tick, the worker's sample is
 * rejected instead of written. */
static int reject_every;
/* Ticks write_profile_as writes (flushing every FLUSH_EVERY). */
static int profile_ticks = TICKS;

struct written {
    char path[8192];
    uint64_t samples;
    uint64_t open_ns;       /* how long writer_open took */
    uint64_t life_ns;       /* from before writer_open to after writer_end */
    size_t nflush;
    uint64_t flush_bytes[TICKS / FLUSH_EVERY + 2];
    uint64_t flush_samples[TICKS / FLUSH_EVERY + 2];
};

/* A profile of process pid (image id uid, started by `by` from parent). */
static void write_profile_as(struct written *w, int pid, uint64_t uid,
                             uint64_t parent, int by)
{
    char dir[] = "/tmp/pyprof-unit.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(pp_out_dir(), PATH_MAX, "%s/out", dir);
    pp_config.hz = 100;
    pp_state.pid = pid;
    pp_state.ppid = 1;
    pp_state.uid = uid;
    pp_state.parent_uid = parent;
    pp_state.started_by = by;
    char *argv[] = { "python3", "app.py", "--flag", NULL };
    /* Ticks are stamped on the monotonic clock, after the file's start. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t before = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    cr_assert_eq(writer_open(&(struct writer_image){ .argv = argv, .interval_ns = 10000000,
                                                     .py_version = "3.12.1" }), 0);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t0 = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    writer_thread(1, 4242, "MainThread", NULL);
    writer_thread(2, 4243, "worker", NULL);
    struct writer_counters c = { 0 };
    memset(w, 0, sizeof *w);
    w->open_ns = t0 - before;
    for (int t = 0; t < profile_ticks; t++) {
        struct pyvm_frame two[2] = { { &inner, 6 + t % 3, 0 }, { &outer, 2, 0 } };
        struct pyvm_frame one[1] = { { &outer, 3, 0 } };
        struct pyvm_thread a = { .tstate = 1, .native_tid = 4242,
                                 .flags = PP_SAMPLE_HOLDS_GIL, .depth = 2,
                                 .frames = two };
        struct pyvm_thread b = { .tstate = 2, .native_tid = 4243, .depth = 1,
                                 .frames = one };
        writer_tick_begin(t0 + (uint64_t)t * 10000000ULL);
        writer_sample(1, &a, a.flags | PP_SAMPLE_ON_CPU);
        if (reject_every && t % reject_every == reject_every - 1) {
            writer_reject(2);
            c.rejected++;
            c.samples--;
            /* its 33 reads failed: 20 torn, 12 too slow, 1 not a stack */
            c.failed_reads[0] += 20;
            c.failed_reads[1] += 12;
            c.failed_reads[2] += 1;
        } else {
            writer_sample(2, &b, 0);
        }
        writer_tick_end();
        c.samples += 2;
        c.ticks++;
        if (t % FLUSH_EVERY == FLUSH_EVERY - 1) {
            writer_flush(&c);
            w->flush_bytes[w->nflush] = writer_bytes();
            w->flush_samples[w->nflush++] = c.samples;
        }
    }
    c.sampler_cpu_ns = 12345678;
    c.idle = 7;
    writer_end(PP_END_EXIT, 0, &c);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    w->life_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec - before;
    w->samples = c.samples;
    DIR *d = opendir(pp_out_dir());
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".zst"))
            snprintf(w->path, sizeof w->path, "%.4095s/%s", pp_out_dir(), e->d_name);
    closedir(d);
    cr_assert(w->path[0], "the writer made no file");
}

static void write_profile(struct written *w)
{
    write_profile_as(w, 4242, 0x1234abcdULL, 0, PP_START_ROOT);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len ? *len : 1);
    cr_assert_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* Every stack of thread 1 is outer:2 -> Job.inner:6..8, in `ticks`
 * samples; every stack of thread 2 is outer:3. */
static void check_stacks(const struct rd_file *f, uint64_t ticks)
{
    uint64_t inner_samples = 0, worker_samples = 0;
    for (size_t i = 0; i < f->counts_cap; i++) {
        const struct rd_count *c = &f->counts[i];
        if (!c->count)
            continue;
        const struct rd_node *leaf = &f->nodes[c->leaf];
        if (c->thread == 2) {
            cr_assert_str_eq(rd_string(f, f->codes[leaf->code].qualname), "outer");
            cr_assert_eq(leaf->line, 3);
            cr_assert_eq(leaf->parent, 0u);
            worker_samples += c->count;
            continue;
        }
        cr_assert_eq(c->thread, 1u);
        cr_assert_str_eq(rd_string(f, f->codes[leaf->code].qualname), "Job.inner");
        cr_assert(leaf->line >= 6 && leaf->line <= 8);
        const struct rd_node *up = &f->nodes[leaf->parent];
        cr_assert_str_eq(rd_string(f, f->codes[up->code].qualname), "outer");
        cr_assert_eq(up->line, 2);
        cr_assert_eq(up->parent, 0u);
        cr_assert_eq(c->flags, PP_SAMPLE_ON_CPU | PP_SAMPLE_HOLDS_GIL);
        inner_samples += c->count;
    }
    cr_assert_eq(inner_samples, ticks);
    cr_assert_eq(inner_samples + worker_samples, f->samples);
}

Test(reader, reads_back_what_the_writer_wrote)
{
    struct written w;
    write_profile(&w);
    struct rd_file *f = rd_read(w.path);
    cr_assert_null(f->problem, "problem: %s", f->problem);
    cr_assert(f->complete);
    cr_assert_eq(f->pid, 4242);
    cr_assert_eq(f->uid, 0x1234abcdULL);
    cr_assert_eq(f->argc, 3u);
    cr_assert_str_eq(f->argv[2], "--flag");
    cr_assert_str_eq(f->python, "3.12.1");
    cr_assert_eq(f->interval_ns, 10000000u);
    cr_assert_eq(f->samples, w.samples);
    cr_assert_eq(f->counters.samples, w.samples);
    cr_assert_eq(f->end_how, PP_END_EXIT);
    cr_assert_eq(f->counters.sampler_cpu_ns, 12345678u);
    cr_assert_eq(f->counters.idle, 7u, "idle deadlines %llu, written 7",
                 (unsigned long long)f->counters.idle);
    /* tick times are kept to 1024 ns steps, without drift: the first
     * tick came after the file's start, by at most writer_open's time */
    uint64_t span = f->last_tick_ns - f->start_ns, want = (uint64_t)(TICKS - 1) * 10000000ULL;
    cr_assert(span + 1024 > want && span <= want + w.open_ns,
              "ticks span %llu ns, expected %llu + up to %llu",
              (unsigned long long)span, (unsigned long long)want,
              (unsigned long long)w.open_ns);
    /* the END record's monotonic span is the file's real life time */
    cr_assert(f->span_ns > 0 && f->span_ns <= w.life_ns,
              "span %llu ns, the writer lived %llu ns",
              (unsigned long long)f->span_ns, (unsigned long long)w.life_ns);
    check_stacks(f, TICKS);
    rd_free(f);
}

/* A file that ends before its first flush is one frame of stored blocks:
 * the writer never starts the compressor for it (a fork child that exits
 * at once must not copy the parent's compressor state). */
Test(reader, a_file_ended_before_its_first_flush_is_stored_and_reads_back)
{
    struct written w;
    profile_ticks = FLUSH_EVERY / 8;
    write_profile(&w);
    size_t len;
    uint8_t *data = slurp(w.path, &len);
    cr_assert(len > 12 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f &&
              data[3] == 0xfd, "no zstd frame at the start of %s", w.path);
    cr_assert_eq(data[4], 0xa0, "frame header descriptor %#x, not a single-segment "
                 "frame with a 4-byte size", data[4]);
    cr_assert_eq(data[9] & 7, 1, "block type %d, last %d: not one last stored block",
                 (data[9] >> 1) & 3, data[9] & 1);
    free(data);
    struct rd_file *f = rd_read(w.path);
    cr_assert_null(f->problem, "problem: %s", f->problem);
    cr_assert(f->complete);
    check_stacks(f, (uint64_t)profile_ticks);
    rd_free(f);
}

/* The tables are emptied lazily (at the first tick of a file): a second
 * file of the same image defines every string, code and node it uses. */
Test(reader, each_file_of_an_image_defines_its_own_stacks)
{
    struct written a, b;
    write_profile_as(&a, 4242, 0x51, 0, PP_START_ROOT);
    write_profile_as(&b, 4242, 0x52, 0, PP_START_ROOT);
    const struct written *ws[] = { &a, &b };
    for (int i = 0; i < 2; i++) {
        struct rd_file *f = rd_read(ws[i]->path);
        cr_assert_null(f->problem, "file %d: %s", i + 1, f->problem);
        cr_assert(f->complete);
        check_stacks(f, TICKS);
        rd_free(f);
    }
}

/* Opens a file of image uid running script (after write_profile set the
 * writer up), with thread 1 MainThread; returns the time of its tick 0. */
static uint64_t open_file_of(uint64_t uid, char *script, const char *version)
{
    char *argv[] = { "python3", script, NULL };
    pp_state.uid = uid;
    cr_assert_eq(writer_open(&(struct writer_image){ .argv = argv, .interval_ns = 10000000,
                                                     .py_version = version }), 0);
    writer_thread(1, 4242, "MainThread", NULL);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The same after writing a whole profile first, for the writer's
 * configuration. */
static uint64_t configured_file_of(uint64_t uid, char *script, const char *version)
{
    struct written first;
    write_profile(&first);
    return open_file_of(uid, script, version);
}

/* MainThread (tid 4242) in two: inner over outer, holding the GIL. */
static struct pyvm_thread main_in(struct pyvm_frame *two)
{
    return (struct pyvm_thread){ .tstate = 1, .native_tid = 4242,
                                 .flags = PP_SAMPLE_HOLDS_GIL, .depth = 2, .frames = two };
}

/* The file of image uid in the output directory ("" when there is none). */
static void file_of(uint64_t uid, char *path, size_t cap)
{
    char want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)uid);
    path[0] = 0;
    DIR *d = opendir(pp_out_dir());
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, want))
            snprintf(path, cap, "%.4095s/%s", pp_out_dir(), e->d_name);
    if (d)
        closedir(d);
}

/* Ticks from .. to - 1, 1 ms apart from t0, each with one sample of a by
 * thread 1 with flags, counted in c. */
static void one_thread_ticks(uint64_t t0, int from, int to, const struct pyvm_thread *a,
                             unsigned flags, struct writer_counters *c)
{
    for (int t = from; t < to; t++) {
        writer_tick_begin(t0 + (uint64_t)t * 1000000ULL);
        writer_sample(1, a, flags);
        writer_tick_end();
        c->samples++;
        c->ticks++;
    }
}

/* A fork child forks from a writer in the middle of a file: the child's
 * file starts with tables it never filled (zero-filled pages, or emptied
 * at its first tick), and the parent's goes on untouched. */
Test(reader, a_fork_child_and_its_parent_each_write_a_whole_file)
{
    uint64_t t0 = configured_file_of(0x61, "app.py", "3.12.1");
    struct pyvm_frame two[2] = { { &inner, 7, 0 }, { &outer, 2, 0 } };
    struct pyvm_thread a = main_in(two);
    struct writer_counters c = { 0 };
    one_thread_ticks(t0, 0, 31, &a, a.flags | PP_SAMPLE_ON_CPU, &c);
    writer_flush(&c);
    one_thread_ticks(t0, 31, 50, &a, a.flags | PP_SAMPLE_ON_CPU, &c);
    struct written *child = mmap(NULL, sizeof *child, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(child, MAP_FAILED);
    pid_t pid = fork();
    if (pid == 0) {
        writer_after_fork();
        write_profile_as(child, 4343, 0x62, 0x61, PP_START_FORK);
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct rd_file *f = rd_read(child->path);
    cr_assert_null(f->problem, "the child's file: %s", f->problem);
    cr_assert(f->complete);
    cr_assert_eq(f->pid, 4343);
    cr_assert_eq(f->parent_uid, 0x61u);
    check_stacks(f, TICKS);
    rd_free(f);

    one_thread_ticks(t0, 50, 80, &a, a.flags | PP_SAMPLE_ON_CPU, &c);
    writer_end(PP_END_EXIT, 0, &c);
    char path[8192];
    file_of(0x61, path, sizeof path);
    f = rd_read(path);
    cr_assert_null(f->problem, "the parent's file: %s", f->problem);
    cr_assert(f->complete);
    check_stacks(f, 80);
    rd_free(f);
    munmap(child, sizeof *child);
}

Test(reader, keeps_every_sample_flushed_before_a_cut, .timeout = 120)
{
    struct written w;
    write_profile(&w);
    size_t len;
    uint8_t *data = slurp(w.path, &len);
    uint64_t last = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        struct rd_file *f = rd_read_mem("cut", data, cut);
        uint64_t flushed = 0;
        for (size_t k = 0; k < w.nflush; k++)
            if (w.flush_bytes[k] <= cut)
                flushed = w.flush_samples[k];
        cr_assert(f->samples >= flushed, "cut at %zu of %zu: %llu samples, %llu "
                  "were flushed before it", cut, len,
                  (unsigned long long)f->samples, (unsigned long long)flushed);
        cr_assert(f->samples <= w.samples);
        cr_assert(f->samples >= last, "more data gave fewer samples at %zu", cut);
        last = f->samples;
        if (cut < len)
            cr_assert_not_null(f->problem, "a file cut at %zu of %zu must be "
                               "reported", cut, len);
        else
            cr_assert_null(f->problem, "whole file: %s", f->problem);
        rd_free(f);
    }
    free(data);
}

/* A sink that keeps each sample as (thread, leaf, flags) and each tick's
 * time, to compare a followed file's with a whole reading's. */
struct seen { uint64_t *v; size_t n, cap; };

static void seen_add(struct seen *s, uint64_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        cr_assert_not_null(s->v);
    }
    s->v[s->n++] = v;
}

static void seen_tick(void *arg, const struct rd_file *f, uint64_t ns)
{
    (void)f;
    seen_add(arg, ns << 1 | 1);
}

static void seen_sample(void *arg, const struct rd_file *f, uint32_t thread,
                        uint32_t leaf, uint8_t flags)
{
    (void)f;
    seen_add(arg, ((uint64_t)thread << 40 | (uint64_t)leaf << 8 | flags) << 1);
}

/* A file read while it is written, in pieces of every size up to 3 KiB
 * and at every flush: after each piece the follow has every sample
 * flushed so far, in the order and with the stacks a whole reading gives,
 * and at the end the file is whole. */
Test(reader, a_file_followed_as_it_grows_gives_what_a_whole_reading_gives,
     .timeout = 120)
{
    struct written w;
    write_profile(&w);
    size_t len;
    uint8_t *data = slurp(w.path, &len);
    struct seen whole = { 0 };
    struct rd_sink ws = { seen_tick, seen_sample, &whole, NULL };
    struct rd_file *f = rd_stream(w.path, &ws);
    cr_assert_null(f->problem, "%s", f->problem);
    rd_free(f);
    for (size_t step = 1; step <= 3072; step = step * 3 + 1) {
        char path[] = "/tmp/pyprof-follow.XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        struct seen got = { 0 };
        struct rd_sink gs = { seen_tick, seen_sample, &got, NULL };
        struct rd_follow *fw = rd_follow_open(path, &gs);
        cr_assert_not_null(fw);
        size_t at = 0, k = 0;
        while (at < len) {
            size_t next = at + step < len ? at + step : len;
            /* every flush point is also a cut */
            while (k < w.nflush && w.flush_bytes[k] <= at)
                k++;
            if (k < w.nflush && w.flush_bytes[k] < next)
                next = w.flush_bytes[k];
            cr_assert_eq(write(fd, data + at, next - at), (ssize_t)(next - at));
            at = next;
            cr_assert_geq(rd_follow_poll(fw), 0, "step %zu, at %zu: %s", step, at,
                          rd_follow_file(fw)->problem);
            uint64_t flushed = 0;
            for (size_t j = 0; j < w.nflush; j++)
                if (w.flush_bytes[j] <= at)
                    flushed = w.flush_samples[j];
            cr_assert_geq(rd_follow_file(fw)->samples, flushed,
                          "step %zu, at %zu of %zu: %llu samples, %llu flushed", step,
                          at, len, (unsigned long long)rd_follow_file(fw)->samples,
                          (unsigned long long)flushed);
        }
        cr_assert_eq(rd_follow_poll(fw), 0, "nothing new after the end");
        struct rd_file *ff = rd_follow_close(fw);
        cr_assert(ff->complete && !ff->problem, "step %zu: %s", step, ff->problem);
        cr_assert_eq(ff->samples, w.samples);
        cr_assert_eq(got.n, whole.n, "step %zu: %zu events, whole %zu", step, got.n,
                     whole.n);
        cr_assert(!memcmp(got.v, whole.v, got.n * sizeof *got.v),
                  "step %zu: another order or other stacks", step);
        rd_free(ff);
        free(got.v);
        close(fd);
        unlink(path);
    }
    free(whole.v);
    free(data);
}

Test(reader, a_followed_file_that_goes_bad_says_so_and_stops)
{
    char path[] = "/tmp/pyprof-follow.XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    struct rd_follow *fw = rd_follow_open(path, &(struct rd_sink){ seen_tick, seen_sample,
                                                                   &(struct seen){ 0 }, NULL });
    cr_assert_eq(rd_follow_poll(fw), 0, "an empty file has nothing yet");
    cr_assert_eq(write(fd, "PK", 2), 2);
    cr_assert_eq(rd_follow_poll(fw), 0, "two bytes: the start of a file being made");
    cr_assert_eq(write(fd, "\3\4 not zstd", 12), 12);
    cr_assert_eq(rd_follow_poll(fw), -1);
    cr_assert(strstr(rd_follow_file(fw)->problem, "not zstd"), "%s",
              rd_follow_file(fw)->problem);
    rd_free(rd_follow_close(fw));
    close(fd);
    unlink(path);
}

/* A file whose writer was killed right after a flush, with much decoded
 * data in each flush: the reader must drain zstd at the end of the input,
 * not only while input remains. */
/* Writes, in a child process, `ticks` ticks of `per` samples, flushing
 * every `every` ticks, and no END: the process was killed right after its
 * last flush.  Returns the samples written; the file's path goes to path. */
static uint64_t write_killed(uint64_t uid, int ticks, int per, int every,
                             char *path, size_t cap)
{
    char *argv[] = { "python3", "big.py", NULL };
    pp_state.uid = uid;
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid > 0) {
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        char want[32];
        snprintf(want, sizeof want, "%016llx", (unsigned long long)uid);
        path[0] = 0;
        DIR *d = opendir(pp_out_dir());
        struct dirent *e;
        while ((e = readdir(d)))
            if (strstr(e->d_name, want))
                snprintf(path, cap, "%.4095s/%s", pp_out_dir(), e->d_name);
        closedir(d);
        return (uint64_t)ticks * (uint64_t)per;
    }
    if (writer_open(&(struct writer_image){ .argv = argv, .interval_ns = 10000000,
                                            .py_version = "3.12.1" }) != 0)
        _exit(1);
    writer_thread(1, 4242, "MainThread", NULL);
    writer_thread(2, 4243, "worker", NULL);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t0 = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    struct writer_counters c = { 0 };
    for (int t = 0; t < ticks; t++) {
        struct pyvm_frame two[2] = { { &inner, 6 + t % 3, 0 }, { &outer, 2, 0 } };
        struct pyvm_thread a = { .tstate = 1, .native_tid = 4242, .depth = 2,
                                 .frames = two };
        writer_tick_begin(t0 + (uint64_t)t * 1000000ULL + (uint64_t)(t % 7) * 4096);
        for (int k = 0; k < per; k++)
            writer_sample((uint32_t)(1 + k % 2), &a, (unsigned)(t % 3 == 0));
        writer_tick_end();
        c.samples += (uint64_t)per;
        c.ticks++;
        if (t % every == every - 1)
            writer_flush(&c);
    }
    _exit(0);
}

/* Much decoded data in each flush: the reader must drain zstd at the end
 * of the input (its output may have been full), not only while input
 * remains. */
Test(reader, a_file_killed_after_large_flushes_keeps_every_sample, .timeout = 120)
{
    struct written w;
    write_profile(&w);         /* sets up the writer's configuration */
    static const int shapes[][3] = {   /* ticks, samples per tick, flush every */
        { 300000, 1, 100000 }, { 300000, 2, 100000 }, { 200000, 1, 50000 },
        { 120000, 3, 40000 }, { 90000, 1, 30000 },
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        char path[8192];
        uint64_t n = write_killed(0x70 + i, shapes[i][0], shapes[i][1], shapes[i][2],
                                  path, sizeof path);
        struct rd_file *f = rd_read(path);
        cr_assert_not_null(f);
        cr_assert_eq(f->samples, n, "%d ticks x %d, flushed every %d: %llu of %llu "
                     "flushed samples read back (%s)", shapes[i][0], shapes[i][1],
                     shapes[i][2], (unsigned long long)f->samples,
                     (unsigned long long)n, f->problem ? f->problem : "");
        cr_assert_not_null(f->problem, "a file without its END must be reported");
        rd_free(f);
    }
}

Test(reader, names_empty_foreign_and_corrupt_files)
{
    struct rd_file *f = rd_read_mem("empty", (const uint8_t *)"", 0);
    cr_assert_str_eq(f->problem, "empty file");
    rd_free(f);

    const char text[] = "#!/bin/sh\necho this is not a profile\n";
    f = rd_read_mem("foreign", (const uint8_t *)text, sizeof text);
    cr_assert(strstr(f->problem, "not a pyprof file"), "%s", f->problem);
    cr_assert_eq(f->samples, 0u);
    rd_free(f);

    struct written w;
    write_profile(&w);
    size_t len;
    uint8_t *data = slurp(w.path, &len);
    for (size_t at = len / 2; at < len; at += len / 7) {
        uint8_t *bad = malloc(len);
        memcpy(bad, data, len);
        bad[at] ^= 0x5a;
        f = rd_read_mem("corrupt", bad, len);
        cr_assert_not_null(f->problem, "a flipped byte at %zu went unnoticed", at);
        cr_assert(f->samples <= w.samples);
        rd_free(f);
        free(bad);
    }
    free(data);
}

static char *report(const char *path, enum m_mode mode, report_writer writer,
                    enum out_group g)
{
    return report_of(path, mode, g, writer);
}

Test(reports, collapsed_lines_are_outermost_first_with_counts)
{
    struct written w;
    write_profile(&w);
    char *out = report(w.path, MODE_WALL, out_collapsed, GROUP_NONE);
    cr_assert(strstr(out, "outer (/app/x.py:2);Job.inner (/app/x.py:6) 100\n"), "%s", out);
    cr_assert(strstr(out, "outer (/app/x.py:3) 300\n"), "%s", out);
    free(out);
    out = report(w.path, MODE_CPU, out_collapsed, GROUP_THREAD);
    cr_assert(strstr(out, "process 4242 python3;thread 4242 MainThread;outer (/app/x.py:2)"),
              "%s", out);
    cr_assert_null(strstr(out, "worker"), "cpu mode keeps an idle thread:\n%s", out);
    free(out);
}

Test(reports, json_and_text_describe_the_process)
{
    struct written w;
    write_profile(&w);
    char *out = report(w.path, MODE_GIL, out_json, GROUP_NONE);
    cr_assert(strstr(out, "\"format\": \"pyprof-report\""));
    cr_assert(strstr(out, "\"mode\": \"gil\""));
    cr_assert(strstr(out, "\"started_by\": \"root\""));
    cr_assert(strstr(out, "\"exit\": {\"code\": 0}"));
    cr_assert(strstr(out, "\"complete\": true"));
    cr_assert(strstr(out, "\"samples\": 300"), "%s", out);
    cr_assert(strstr(out, "{\"name\": \"Job.inner\", \"file\": \"/app/x.py\", \"line\": 5, "
                          "\"self\": 300, \"total\": 300}"), "%s", out);
    free(out);
    out = report(w.path, MODE_WALL, out_text, GROUP_NONE);
    cr_assert(strstr(out, "processes       1 (1 Python)"), "%s", out);
    cr_assert(strstr(out, "4242"), "%s", out);
    cr_assert(strstr(out, "exit 0"), "%s", out);
    cr_assert(strstr(out, "Job.inner (/app/x.py:5)"), "%s", out);
    /* the process row states the sampler's own CPU time, in ms */
    const char *row = strstr(out, "4242 ");
    cr_assert(row && strstr(row, " 12.3 ") && strstr(row, " 12.3 ") < strchr(row, '\n'),
              "no sampler CPU (12.3 ms) in the process row:\n%s", out);
    free(out);
}

/* The row of pid in a text report, and how far it is indented. */
static int row_indent(const char *out, const char *pid)
{
    const char *tree = strstr(out, "Process tree");
    cr_assert_not_null(tree, "%s", out);
    for (const char *l = tree; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        int sp = (int)strspn(l, " ");
        if (!strncmp(l + sp, pid, strlen(pid)) && l[sp + strlen(pid)] == ' ')
            return sp;
    }
    cr_assert_fail("no row for %s in:\n%s", pid, out);
    return -1;
}

Test(reports, the_text_tree_indents_a_child_under_its_parent)
{
    struct written root, child;
    write_profile_as(&root, 4242, 0xa1ULL, 0, PP_START_ROOT);
    write_profile_as(&child, 4243, 0xb2ULL, 0xa1ULL, PP_START_FORK);
    char *paths[] = { child.path, root.path };
    char *buf = report_of_files(paths, 2, MODE_WALL, GROUP_NONE, out_text);
    cr_assert_eq(row_indent(buf, "4243"), row_indent(buf, "4242") + 2,
                 "the fork child is not indented under its parent:\n%s", buf);
    free(buf);
}

/* The writer counts each reject under the leaf of its thread's last
 * sample; above 2 % of a process's ticks the text report says so on the
 * process's line, with where the threads were last seen. */
Test(reports, rejects_over_2_percent_of_ticks_are_said_on_the_process_line)
{
    struct written w;
    reject_every = 10;
    write_profile(&w);
    reject_every = 0;
    struct rd_file *f = rd_read(w.path);
    cr_assert_null(f->problem, "problem: %s", f->problem);
    cr_assert_eq(f->counters.rejected, TICKS / 10u);
    cr_assert_eq(f->nrejects, 1u);
    const struct rd_node *leaf = &f->nodes[f->rejects[0].leaf];
    cr_assert_str_eq(rd_string(f, f->codes[leaf->code].qualname), "outer");
    cr_assert_eq(f->rejects[0].count, TICKS / 10u);
    uint64_t n = TICKS / 10u;
    cr_assert(f->counters.failed_reads[0] == 20 * n &&
              f->counters.failed_reads[1] == 12 * n &&
              f->counters.failed_reads[2] == n,
              "failed reads %llu torn, %llu slow, %llu other; wrote %llu, %llu, %llu",
              (unsigned long long)f->counters.failed_reads[0],
              (unsigned long long)f->counters.failed_reads[1],
              (unsigned long long)f->counters.failed_reads[2],
              (unsigned long long)(20 * n), (unsigned long long)(12 * n),
              (unsigned long long)n);
    rd_free(f);
    /* Cut after its last flush: the COUNTERS record says them too. */
    size_t len;
    uint8_t *data = slurp(w.path, &len);
    f = rd_read_mem("cut", data, (size_t)w.flush_bytes[w.nflush - 1]);
    cr_assert(f->counters.rejected > 0 && !f->complete &&
              f->counters.failed_reads[0] == 20 * f->counters.rejected &&
              f->counters.failed_reads[1] == 12 * f->counters.rejected &&
              f->counters.failed_reads[2] == f->counters.rejected,
              "cut file: %llu rejected, failed reads %llu/%llu/%llu",
              (unsigned long long)f->counters.rejected,
              (unsigned long long)f->counters.failed_reads[0],
              (unsigned long long)f->counters.failed_reads[1],
              (unsigned long long)f->counters.failed_reads[2]);
    rd_free(f);
    free(data);
    char *text = report_of(w.path, MODE_WALL, GROUP_NONE, out_text);
    char want[160];
    snprintf(want, sizeof want, "[rejected 10.0 %% of ticks; last seen in: outer 100 %%; "
             "failed reads: %llu torn, %llu too slow, %llu other]",
             (unsigned long long)(20 * n), (unsigned long long)(12 * n),
             (unsigned long long)n);
    cr_assert(strstr(text, want), "no '%s' in:\n%s", want, text);
    free(text);
}

Test(reports, rejects_under_2_percent_of_ticks_are_not_remarked)
{
    struct written w;
    reject_every = 100;
    write_profile(&w);
    reject_every = 0;
    char *text = report_of(w.path, MODE_WALL, GROUP_NONE, out_text);
    cr_assert_null(strstr(text, "[rejected"), "%s", text);
    free(text);
}

/* Ends the file of image uid with counters c and reads it back whole
 * (its path into path). */
static struct rd_file *end_and_read(uint64_t uid, const struct writer_counters *c,
                                    char *path, size_t cap)
{
    writer_end(PP_END_EXIT, 0, c);
    file_of(uid, path, cap);
    struct rd_file *f = rd_read(path);
    cr_assert_null(f->problem, "%s", f->problem);
    cr_assert(f->complete);
    return f;
}

/* A frame whose line is below -1 (decoded from a code object caught
 * half-built) is written as a frame of unknown line: the file reads whole. */
Test(reader, a_line_below_minus_one_is_written_as_unknown)
{
    uint64_t t0 = configured_file_of(0x71, "bad_line.py", "3.10.13");
    struct pyvm_frame two[2] = { { &inner, -7, 0 }, { &outer, INT32_MIN, 0 } };
    struct pyvm_thread a = main_in(two);
    a.flags = 0;
    struct writer_counters c = { 0 };
    one_thread_ticks(t0, 0, 5, &a, 0, &c);
    char path[8192];
    struct rd_file *f = end_and_read(0x71, &c, path, sizeof path);
    cr_assert_gt(f->nnodes, 2u);
    cr_assert_eq(f->samples, 5u);
    cr_assert_eq(f->nodes[1].line, -1);
    cr_assert_eq(f->nodes[2].line, -1);
    cr_assert_eq(f->nodes[2].parent, 1u);
    rd_free(f);
}

/* CPU time of deadlines the sampler missed (writer_cpu_extra): more
 * CPU-mode samples of the tick's stack, which the reader counts apart and
 * no other mode keeps; wall and GIL counts, and the samples read, stay
 * the ticks'. */
Test(reader, cpu_time_of_missed_deadlines_counts_in_cpu_mode_alone)
{
    uint64_t t0 = configured_file_of(0x81, "busy.py", "3.12.1");
    struct pyvm_frame two[2] = { { &inner, 7, 0 }, { &outer, 2, 0 } };
    struct pyvm_thread a = main_in(two);
    struct writer_counters c = { 0 };
    unsigned on = a.flags | PP_SAMPLE_ON_CPU;
    one_thread_ticks(t0, 0, 10, &a, on, &c);
    writer_tick_begin(t0 + 20 * 1000000ULL);
    writer_sample(1, &a, on);
    writer_cpu_extra(1, on, 9);         /* the ten deadlines before it */
    writer_tick_end();
    c.samples++;
    c.ticks++;
    c.missed += 9;
    writer_tick_begin(t0 + 21 * 1000000ULL);
    writer_sample(1, &a, 0);
    writer_cpu_extra(1, 0, 0);          /* nothing to add: no record */
    writer_tick_end();
    c.samples++;
    c.ticks++;
    char path[8192];
    struct rd_file *f = end_and_read(0x81, &c, path, sizeof path);
    cr_assert_eq(f->samples, 12u, "samples read %llu", (unsigned long long)f->samples);
    cr_assert_eq(f->cpu_extra, 9u, "CPU extras %llu", (unsigned long long)f->cpu_extra);
    uint64_t plain = 0, extra = 0;
    for (size_t i = 0; i < f->counts_cap; i++) {
        const struct rd_count *k = &f->counts[i];
        if (k->flags & PP_SAMPLE_RESERVED) {
            cr_assert_eq(k->flags, on | PP_SAMPLE_RESERVED);
            cr_assert_str_eq(rd_string(f, f->codes[f->nodes[k->leaf].code].qualname),
                             "Job.inner");
            extra += k->count;
        } else {
            plain += k->count;
        }
    }
    cr_assert_eq(plain, 12u);
    cr_assert_eq(extra, 9u);
    rd_free(f);
    /* 11 flagged samples and 9 extras in CPU mode; 12 in wall mode, 11
     * holding the GIL; wall with --exclude-idle is CPU mode */
    char *paths[] = { path };
    struct { enum m_mode mode; int idle; uint64_t want; } cases[] = {
        { MODE_CPU, 0, 20 }, { MODE_WALL, 0, 12 }, { MODE_GIL, 0, 11 },
        { MODE_WALL, 1, 20 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct m_options mo = { .mode = cases[i].mode, .exclude_idle = cases[i].idle };
        struct model *m = model_build(paths, 1, &mo, 1);
        cr_assert_not_null(m);
        cr_assert_eq(m->samples, cases[i].want, "mode %d%s: %llu samples, expected %llu",
                     cases[i].mode, cases[i].idle ? " --exclude-idle" : "",
                     (unsigned long long)m->samples, (unsigned long long)cases[i].want);
        cr_assert_eq(m->samples_all, 12u);
        model_free(m);
    }
}
