/*
 * test_on_demand.c — a tree started paused (pyprof-run --paused) samples
 * only between pyprof-run --control DIR start and stop, in every process,
 * one born after the start too, from within 200 ms of each; its samplers
 * use no CPU while paused, and count no deadline of the time paused; start --for ends by itself; another user may
 * not control it (pyprof-run(1), --paused and --control).  The window and
 * a mark made in it are in the files: pyprof-merge's JSON lists them,
 * --window 1 keeps the window's samples, gecko draws them as markers
 * (pyprof-merge(1)).
 *
 * tests/py/on_demand.py's tree (a parent, child_a forked at once, child_b
 * forked once the test says the tree was started) runs until the test
 * tells it to end; the test drives it from pp_run's poll, by the clock.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "pyprof/control.h"

#define HZ 200
#define PAUSED_S 0.8
#define WINDOW_S 1.5
#define TAIL_S 0.6

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* pyprof-run --control dir ARGS...: its exit status and stderr's first
 * line. */
static int control(const char *dir, const char *const args[], char *err, size_t cap)
{
    const char *argv[12] = { getenv("PYPROF_TEST_RUN"), "--control", dir };
    size_t k = 3;
    for (size_t i = 0; args[i] && k < 11; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    struct pp_result r;
    pp_run(&r, argv, NULL, 20, NULL, NULL);
    snprintf(err, cap, "%s", r.err);
    return r.exited ? r.code : -1;
}

struct drive {
    const char *dir;
    const char *for_s;       /* start --for this, or NULL */
    double t0, start, stop;
    int step;
    double paused_cpu;       /* CPU of the tree's threads but the main ones while paused */
    long paused_wakeups;     /* and their wake-ups, from their start */
    int paused_threads;      /* samplers looked at                      */
    int files_paused;        /* profiles that existed while paused */
    char err[256];
};

static size_t count_zst(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".zst") != NULL;
    if (d)
        closedir(d);
    return n;
}

/* CPU seconds of every thread of every process of group pgid but the
 * processes' main threads: the samplers (the tree's only other threads);
 * their wake-ups (voluntary context switches) in *wakeups. */
static int threads_seen;

static double sampler_cpu(pid_t pgid, long *wakeups)
{
    double s = 0;
    *wakeups = 0;
    threads_seen = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid = strtol(e->d_name, NULL, 10);
        char path[64], buf[1024];
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        const char *rp = strrchr(buf, ')');
        long group = 0;
        if (!rp || sscanf(rp + 2, "%*c %*d %ld", &group) != 1 || group != pgid)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/task", pid);
        DIR *t = opendir(path);
        struct dirent *te;
        while (t && (te = readdir(t))) {
            long tid = strtol(te->d_name, NULL, 10);
            if (tid <= 0 || tid == pid)
                continue;
            threads_seen++;
            snprintf(path, sizeof path, "/proc/%ld/task/%ld/schedstat", pid, tid);
            FILE *sf = fopen(path, "r");
            unsigned long long ns = 0;
            if (sf && fscanf(sf, "%llu", &ns) == 1)
                s += (double)ns / 1e9;
            if (sf)
                fclose(sf);
            snprintf(path, sizeof path, "/proc/%ld/task/%ld/status", pid, tid);
            FILE *st = fopen(path, "r");
            char line[256];
            long v;
            while (st && fgets(line, sizeof line, st))
                if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
                    *wakeups += v;
            if (st)
                fclose(st);
        }
        if (t)
            closedir(t);
    }
    if (d)
        closedir(d);
    return s;
}

static void touch(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

static void step(void *arg, pid_t pid)
{
    struct drive *d = arg;
    double t = wall();
    /* Paused for PAUSED_S, and until both processes alive (the parent,
     * child_a) have their file (10 s at most: a loaded machine starts
     * interpreters slowly). */
    if (d->step == 0 && t > d->t0 + PAUSED_S &&
        (count_zst(d->dir) >= 2 || t > d->t0 + 10)) {
        d->files_paused = (int)count_zst(d->dir);
        /* pp_run makes pid a group leader: the tree is its group */
        d->paused_cpu = sampler_cpu(pid, &d->paused_wakeups);
        d->paused_threads = threads_seen;
        const char *start[] = { "start", d->for_s ? "--for" : NULL, d->for_s, NULL };
        d->start = wall();
        if (control(d->dir, start, d->err, sizeof d->err) != 0)
            d->step = 9;
        /* child_b born, and the mark made, right after the start: inside
         * the window however slowly a loaded machine runs the commands */
        touch(d->dir, "go");
        if (d->step != 9 && control(d->dir, (const char *const[]){ "mark", "half way", NULL },
                                    d->err, sizeof d->err) != 0)
            d->step = 9;
        d->step = d->step == 9 ? 9 : 1;
    } else if (d->step == 1 && t > d->start + WINDOW_S) {
        d->stop = wall();
        if (!d->for_s && control(d->dir, (const char *const[]){ "stop", NULL }, d->err,
                                 sizeof d->err) != 0)
            d->step = 9;
        d->step = d->step == 9 ? 9 : 2;
    } else if ((d->step == 2 && t > d->stop + TAIL_S) || d->step == 9) {
        touch(d->dir, "end");
        d->step = 3;
    }
}

/* Each process's first and last sample time (seconds since the epoch)
 * from the gecko timeline; returns the processes seen. */
static size_t spans(const struct pp_json *doc, double *first, double *last, long *pids,
                    long *counts, size_t cap)
{
    size_t n = 0;
    const struct pp_json *ps = pp_json_get(doc, "processes");
    for (size_t i = 0; ps && i < ps->n && n < cap; i++) {
        const struct pp_json *p = &ps->items[i], *th = pp_json_get(p, "threads");
        double start = pp_json_num(p, "meta.startTime", 0);
        first[n] = 1e300;
        last[n] = 0;
        counts[n] = 0;
        pids[n] = 0;
        for (size_t t = 0; th && t < th->n; t++) {
            const struct pp_json *data = pp_json_get(&th->items[t], "samples.data");
            pids[n] = (long)pp_json_num(&th->items[t], "pid", 0);
            for (size_t k = 0; data && k < data->n; k++) {
                const struct pp_json *e = &data->items[k];
                if (e->n < 2 || e->items[0].type != PP_JNUM)
                    continue;
                double at = (start + e->items[1].num) / 1e3;
                first[n] = at < first[n] ? at : first[n];
                last[n] = at > last[n] ? at : last[n];
                counts[n]++;
            }
        }
        n++;
    }
    return n;
}

static void on_demand_case(const struct pp_python *py, const char *for_s)
{
    const char *dir = pp_tmpdir();
    char hz[16];
    snprintf(hz, sizeof hz, "%d", HZ);
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "--paused", "-q", "-r", hz, "-o", dir,
                           "--", py->path, "-S", "-I", pp_script("on_demand.py"), dir,
                           NULL };
    struct drive d = { .dir = dir, .for_s = for_s, .t0 = wall() };
    struct pp_result run;
    pp_run(&run, argv, NULL, 60, step, &d);
    pp_assert(py, d.step == 3 && run.exited && run.code == 0,
              "%s: the tree ended %s (step %d; control said: %s); stderr: %s",
              for_s ? "--for" : "start/stop", pp_describe(&run), d.step, d.err, run.err);
    /* A sampler's start-up sleeps a few times, and it looks every 10 ms
     * until the interpreter is ready to write the process's file; a timer
     * at 200 Hz would wake it 160 times in the 0.8 s.  Each process alive
     * (the parent, child_a) has its file, without a sample (below: none
     * before the start). */
    pp_expect(py, d.files_paused == 2 && d.paused_threads >= 2 && d.paused_cpu < 0.005 &&
                  d.paused_wakeups <= 30,
              "while paused: %d profiles written (2 processes); %d samplers used %.1f ms "
              "of CPU and woke %ld times", d.files_paused, d.paused_threads,
              d.paused_cpu * 1e3, d.paused_wakeups);
    /* The commands' own times, from the page they wrote: under load the
     * test's clock before running one may be well before it. */
    char page_path[4096];
    struct pp_control page;
    snprintf(page_path, sizeof page_path, "%s/%s", dir, PP_CONTROL_FILE);
    FILE *pf = fopen(page_path, "rb");
    pp_assert(py, pf && fread(&page, sizeof page, 1, pf) == 1 && page.start_ns,
              "cannot read %s", page_path);
    fclose(pf);
    d.start = (double)page.start_ns / 1e9;
    double end = for_s ? (double)page.until_ns / 1e9 : (double)page.stop_ns / 1e9;
    struct pp_result js, w1, w2, gk;
    pp_merge(&js, "json", NULL, dir);
    const struct pp_json *doc = pp_parse_json(py, &js);
    double ws = pp_json_num(doc, "windows.0.start", 0), we = pp_json_num(doc, "windows.0.stop", 0);
    pp_expect(py, pp_json_len(doc, "windows") == 1 && ws >= d.start - 0.001 &&
                  ws <= d.start + 0.5 && we >= end - 0.001 && we <= end + 0.2 &&
                  pp_json_len(doc, "marks") == 1 &&
                  !strcmp(pp_json_str(doc, "marks.0.text") ? pp_json_str(doc, "marks.0.text")
                                                           : "", "half way"),
              "the files' window is %.3f to %.3f s after the start (%zu windows, %zu marks); "
              "sampling was on from 0 to %.3f s", ws - d.start, we - d.start,
              pp_json_len(doc, "windows"), pp_json_len(doc, "marks"), end - d.start);
    /* Every deadline of the window is a tick served, missed or idle, and
     * no deadline outside it: the time paused (before the start, and
     * after the stop until the tree ends) is neither ticks nor missed
     * ones (pyprof(7), "Sampling on demand").  Builds before 2026-12-01
     * counted a process's deadlines from the stop to its end as missed. */
    const struct pp_json *procs = pp_json_get(doc, "processes");
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        double served = pp_json_num(p, "counters.ticks", -1),
               missed = pp_json_num(p, "counters.missed", -1),
               idle = pp_json_num(p, "counters.idle", -1);
        double window = (end - d.start + 0.2) * HZ + 2;
        pp_expect(py, served >= 0 && missed >= 0 && idle >= 0 &&
                      served + missed + idle <= window,
                  "%s: pid %.0f accounts for %.0f deadlines (%.0f ticks, %.0f missed, "
                  "%.0f idle); its window holds at most %.0f",
                  for_s ? "--for" : "start/stop", pp_json_num(p, "pid", -1),
                  served + missed + idle, served, missed, idle, window);
    }
    pp_merge(&w1, "json", (const char *const[]){ "--window", "1", NULL }, dir);
    pp_expect(py, w1.code == 0 && pp_json_num(pp_parse_json(py, &w1), "totals.samples", -1) ==
                  pp_json_num(doc, "totals.samples", -2),
              "--window 1 does not keep every sample of the run's one window: %s", w1.err);
    pp_merge(&w2, "text", (const char *const[]){ "--window", "2", NULL }, dir);
    pp_expect(py, w2.code == 2 && strstr(w2.err, "window 2"), "--window 2: %s", w2.err);
    pp_merge(&gk, "gecko", NULL, dir);
    pp_assert(py, gk.code == 0, "pyprof-merge --format gecko: %s", gk.err);
    double first[8], last[8];
    long pids[8], counts[8];
    const struct pp_json *gdoc = pp_parse_json(py, &gk);
    size_t n = spans(gdoc, first, last, pids, counts, 8);
    pp_expect(py, strstr(gk.out, "\"sampling window 1\"") && strstr(gk.out, "\"mark: half way\""),
              "gecko has no markers of the window and the mark");
    pp_expect(py, n == 3, "%zu processes have a timeline, not 3", n);
    for (size_t i = 0; i < n; i++) {
        /* child_b is born after the start (at "go"), the others before */
        double from = i == 2 ? first[i] : d.start;
        pp_measure(py, "first sample after the start, s", first[i] - from, "<=", 0.2);
        pp_expect(py, counts[i] >= 10 && first[i] >= d.start - 0.001 &&
                      first[i] <= from + 0.2 && last[i] <= end + 0.2 + 1.0 / HZ,
                  "%s: pid %ld sampled %ld times from %+.3f to %+.3f s after the start; "
                  "sampling was on from 0 to %.3f s",
                  for_s ? "--for" : "start/stop", pids[i], counts[i], first[i] - d.start,
                  last[i] - d.start, end - d.start);
    }
}

PP_TEST(on_demand, a_paused_tree_samples_only_between_start_and_stop_in_every_process,
        .timeout = 120)
{
    on_demand_case(py, NULL);
    on_demand_case(py, "1.5");
}

Test(on_demand, another_user_may_not_control_a_tree)
{
    if (geteuid() != 0 || !pp_on_path("setpriv")) {
        fprintf(stderr, "SKIP: on_demand: another user's control needs root and setpriv\n");
        return;
    }
    const char *dir = pp_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/control", dir);
    /* a control page as pyprof-run --paused leaves it, made by a run */
    const char *mk[] = { getenv("PYPROF_TEST_RUN"), "--paused", "-q", "-o", dir, "--",
                         "true", NULL };
    struct pp_result r;
    pp_run(&r, mk, NULL, 20, NULL, NULL);
    cr_assert(r.exited && r.code == 0 && access(path, F_OK) == 0, "no %s: %s", path, r.err);
    chmod(dir, 0755);
    const char *as_nobody[] = { "setpriv", "--reuid=65534", "--regid=65534",
                                "--clear-groups", getenv("PYPROF_TEST_RUN"), "--control",
                                dir, "start", NULL };
    pp_run(&r, as_nobody, NULL, 20, NULL, NULL);
    cr_expect(r.exited && r.code == 2 && strstr(r.err, "Permission denied"),
              "nobody's start: %s, %s", pp_describe(&r), r.err);
    const char *as_root[] = { getenv("PYPROF_TEST_RUN"), "--control", dir, "start", NULL };
    pp_run(&r, as_root, NULL, 20, NULL, NULL);
    cr_expect(r.exited && r.code == 0, "root's start: %s, %s", pp_describe(&r), r.err);
}
