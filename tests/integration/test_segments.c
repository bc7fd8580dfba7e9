/*
 * test_segments.c — bounded disk (pyprof-run(1), BOUNDED DISK): with
 * --max-size the directory's profiles stay under the size at every
 * moment of a run that writes several times as much, and with --keep
 * only the segments that ended within the duration are left; either way
 * what is left merges into a complete, undamaged profile (each process
 * ended with its exit, every segment readable on its own, their samples
 * the merged ones, a thread named in an earlier segment still named).
 *
 * tests/py/segments.py writes fast: every call is to a function never
 * seen before.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define MAX_SIZE 131072u     /* --max-size 128K */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A JSON true at path: 1, false 0, else -1. */
static int flag(const struct pp_json *j, const char *path)
{
    j = pp_json_get(j, path);
    return j && j->type == PP_JBOOL ? (int)j->num : -1;
}

/* The sizes of dir's profiles now, and how many there are. */
static unsigned long long zst_bytes(const char *dir, size_t *files)
{
    unsigned long long total = 0;
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        struct stat st;
        char path[4096];
        if (len < 4 || strcmp(e->d_name + len - 4, ".zst"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0) {
            total += (unsigned long long)st.st_size;
            n++;
        }
    }
    if (d)
        closedir(d);
    if (files)
        *files = n;
    return total;
}

struct watch { const char *dir; unsigned long long peak; long looks; };

static void look(void *arg, pid_t pid)
{
    (void)pid;
    struct watch *w = arg;
    unsigned long long b = zst_bytes(w->dir, NULL);
    w->peak = b > w->peak ? b : w->peak;
    w->looks++;
}

/* The number before "older segments" in pyprof-run's summary, or -1. */
static long deleted_of(const char *err)
{
    const char *p = strstr(err, "older segments");
    if (!p)
        return -1;
    while (p > err && p[-1] == ' ')
        p--;
    while (p > err && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtol(p, NULL, 10);
}

/* Every process of the merged report complete, ended by its exit 0, its
 * file cut in segments; every segment alone a complete profile, their
 * samples the merged ones.  Returns the report. */
static const struct pp_json *whole(const struct pp_python *py, const char *dir,
                                   size_t *older)
{
    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    pp_assert(py, procs && procs->n == 3, "%zu processes in the merged report, not 3",
              procs ? procs->n : 0);
    *older = 0;
    for (size_t i = 0; i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        pp_expect(py, flag(p, "complete") == 1 &&
                      pp_json_num(p, "exit.code", -1) == 0 &&
                      pp_json_num(p, "segments.files", 0) >= 1 &&
                      pp_json_num(p, "samples", 0) > 100,
                  "pid %.0f: complete %.0f, exit %.0f, %.0f segments, %.0f samples",
                  pp_json_num(p, "pid", 0), (double)flag(p, "complete"),
                  pp_json_num(p, "exit.code", -1), pp_json_num(p, "segments.files", 0),
                  pp_json_num(p, "samples", 0));
        *older += pp_json_num(p, "segments.first", 0) > 0;
    }
    const struct pp_json *root = pp_json_process(doc, 0, "root");
    const struct pp_json *threads = root ? pp_json_get(root, "threads") : NULL;
    int named = 0;
    for (size_t t = 0; threads && t < threads->n; t++) {
        const char *name = pp_json_str(&threads->items[t], "name");
        named += name && !strcmp(name, "segment worker");
    }
    pp_expect(py, named == 1, "the parent's thread \"segment worker\" is not named in "
              "the merged report (%d)", named);
    /* each segment alone */
    double sum = 0;
    size_t files = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".zst"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct pp_result r;
        pp_merge(&r, "json", NULL, path);
        const struct pp_json *one = pp_parse_json(py, &r);
        pp_expect(py, r.code == 0 && pp_json_len(one, "problems") == 0 &&
                      flag(one, "processes.0.complete") == 1,
                  "%s alone: pyprof-merge exited %d, %zu problems, complete %.0f: %s",
                  e->d_name, r.code, pp_json_len(one, "problems"),
                  (double)flag(one, "processes.0.complete"), r.err);
        sum += pp_json_num(one, "totals.samples", 0);
        files++;
    }
    if (d)
        closedir(d);
    pp_expect(py, files >= 4 && sum == pp_json_num(doc, "totals.samples", -1),
              "%zu segments alone hold %.0f samples; merged, %.0f", files, sum,
              pp_json_num(doc, "totals.samples", -1));
    return doc;
}

PP_TEST(segments, max_size_holds_the_profiles_under_it_at_every_moment, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "--max-size", "128K", "-r", "1000",
                           "-o", dir, "--", py->path, "-S", "-I", pp_script("segments.py"),
                           "4", NULL };
    struct watch w = { .dir = dir };
    struct pp_result run;
    pp_run(&run, argv, NULL, 60, look, &w);
    look(&w, 0);
    pp_assert(py, run.exited && run.code == 0, "the run ended %s: %s", pp_describe(&run),
              run.err);
    long deleted = deleted_of(run.err);
    size_t older;
    whole(py, dir, &older);
    pp_measure(py, "profiles' bytes at most under --max-size 128K", (double)w.peak, "<=",
               MAX_SIZE);
    pp_expect(py, w.peak <= MAX_SIZE && deleted >= 3 && older >= 1 && w.looks > 100,
              "--max-size 128K: at most %llu bytes of profiles at %ld looks; %ld segments "
              "deleted, %zu processes begin after deleted ones; pyprof-run said: %s",
              w.peak, w.looks, deleted, older, run.err);
}

PP_TEST(segments, keep_leaves_the_segments_that_ended_within_it, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "--keep", "2s", "-r", "500",
                           "-o", dir, "--", py->path, "-S", "-I", pp_script("segments.py"),
                           "5", NULL };
    struct pp_result run;
    pp_run(&run, argv, NULL, 60, NULL, NULL);
    double done = wall();
    pp_assert(py, run.exited && run.code == 0, "the run ended %s: %s", pp_describe(&run),
              run.err);
    long deleted = deleted_of(run.err);
    size_t older;
    const struct pp_json *doc = whole(py, dir, &older);
    pp_expect(py, deleted >= 3 && older == 3, "--keep 2s over 5 s: %ld segments deleted, "
              "%zu of 3 processes begin after deleted ones: %s", deleted, older, run.err);
    /* Segments of 1 s (an eighth of the duration, at least 1 s).  The
     * last look, after the tree ended and before pyprof-run did, deleted
     * what ended 2 s before it: each process's kept segments begin at
     * least 2 s before pyprof-run's end, and at most one segment (and a
     * tick) before that look's bound, by its own end. */
    const struct pp_json *procs = pp_json_get(doc, "processes");
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        double start = pp_json_num(p, "start", 0), end = pp_json_num(p, "end", 0);
        pp_measure(py, "seconds kept before the run's end by --keep 2s", done - start,
                   ">=", 2.0);
        pp_measure(py, "seconds kept before the process's end by --keep 2s", end - start,
                   "<=", 3.3);
        pp_expect(py, done - start >= 2.0 && end - start <= 3.3,
                  "pid %.0f: its kept segments begin %.2f s before the run ended and "
                  "span %.2f s to its end (--keep 2s, segments of 1 s)",
                  pp_json_num(p, "pid", 0), done - start, end - start);
    }
}
