/*
 * test_windows.c — pyprof-merge --since, --until and --last keep the
 * samples of their part of the run and none of the rest, in every
 * format, and leave out the processes that lived outside it
 * (pyprof-merge(1), TIME WINDOWS).
 *
 * phases.py burns in alpha, then in beta, each for SECS; a fork child
 * burns in child_burn during the first half of alpha.  The windows are
 * placed 0.1 s inside a phase by the times phases.py printed (wall clock),
 * so no sample of the other phase can be in them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define HZ   200
#define SECS 0.8
#define EDGE 0.1

struct phases { double a0, a1, b0, b1, start; };

/* What one window must show: which functions have samples, how many
 * processes are in it and how many were left out. */
struct want {
    const char *name;
    int alpha, beta, child;
    size_t procs, outside;
    int pprof;              /* also read by go tool pprof */
};

static long json_total(const struct pp_json *doc, const char *fn)
{
    const struct pp_json *f = pp_json_find(pp_json_get(doc, "functions"), "name", fn);
    return f ? (long)pp_json_num(f, "total", 0) : 0;
}

/* Samples with a stack in a speedscope document, and whether any of them
 * has a frame named fn. */
static long speedscope_samples(const struct pp_json *doc, const char *fn, int *seen)
{
    const struct pp_json *frames = pp_json_get(doc, "shared.frames"),
                         *profiles = pp_json_get(doc, "profiles");
    long n = 0;
    *seen = 0;
    for (size_t i = 0; profiles && frames && i < profiles->n; i++) {
        const struct pp_json *s = pp_json_get(&profiles->items[i], "samples");
        for (size_t k = 0; s && k < s->n; k++) {
            const struct pp_json *st = &s->items[k];
            n += st->n > 0;
            for (size_t d = 0; d < st->n; d++) {
                size_t f = (size_t)st->items[d].num;
                const char *name = f < frames->n ? pp_json_str(&frames->items[f], "name")
                                                 : NULL;
                *seen |= name && !strcmp(name, fn);
            }
        }
    }
    return n;
}

/* Samples of every thread of every process in a gecko document. */
static long gecko_samples(const struct pp_json *p)
{
    long n = 0;
    const struct pp_json *th = pp_json_get(p, "threads"), *ps = pp_json_get(p, "processes");
    for (size_t i = 0; th && i < th->n; i++) {
        size_t k = pp_json_len(&th->items[i], "samples.data");
        n += k == (size_t)-1 ? 0 : (long)k;
    }
    for (size_t i = 0; ps && i < ps->n; i++)
        n += gecko_samples(&ps->items[i]);
    return n;
}

/* Samples with a stack of process pid in a gecko document of the whole
 * run, taken at or after lo and before hi (seconds since the epoch): each
 * sample's time is its process's startTime plus its own, in ms with
 * microseconds. */
static long gecko_between(const struct pp_json *doc, long pid, double lo, double hi)
{
    long n = 0;
    const struct pp_json *ps = pp_json_get(doc, "processes");
    for (size_t i = 0; ps && i < ps->n; i++) {
        const struct pp_json *p = &ps->items[i], *th = pp_json_get(p, "threads");
        double start = pp_json_num(p, "meta.startTime", 0);
        for (size_t t = 0; th && t < th->n; t++) {
            const struct pp_json *data = pp_json_get(&th->items[t], "samples.data");
            if ((long)pp_json_num(&th->items[t], "pid", -1) != pid || !data)
                continue;
            for (size_t k = 0; k < data->n; k++) {
                const struct pp_json *e = &data->items[k];
                double at = (start + pp_json_num(e, "1", 0)) / 1e3;
                n += e->n > 1 && e->items[0].type == PP_JNUM && at >= lo &&
                     (hi < 0 || at < hi);
            }
        }
    }
    return n;
}

static void check_window(const struct pp_python *py, const char *dir,
                         const char *const opts[], const struct want *w,
                         const struct pp_json *whole)
{
    struct pp_result json, col, text, ss, gk, pst;
    pp_merge(&json, "json", opts, dir);
    pp_assert(py, json.code == 0, "%s: pyprof-merge --format json: %s", w->name, json.err);
    const struct pp_json *doc = pp_parse_json(py, &json);
    long total = (long)pp_json_num(doc, "totals.samples", -1);
    long alpha = json_total(doc, "alpha"), beta = json_total(doc, "beta"),
         child = json_total(doc, "child_burn");
    pp_expect(py, (alpha > 0) == w->alpha && (beta > 0) == w->beta &&
                  (child > 0) == w->child,
              "%s: alpha %ld, beta %ld, child_burn %ld samples; wanted %s%s%s", w->name,
              alpha, beta, child, w->alpha ? "alpha " : "", w->beta ? "beta " : "",
              w->child ? "child_burn" : "");
    pp_expect(py, pp_json_len(doc, "processes") == w->procs &&
                  pp_json_num(doc, "window.processes_outside", -1) == (double)w->outside,
              "%s: %zu processes, %.0f left out; wanted %zu and %zu", w->name,
              pp_json_len(doc, "processes"),
              pp_json_num(doc, "window.processes_outside", -1), w->procs, w->outside);
    /* The main process's samples are those of the whole run's timeline
     * (gecko) taken inside its window: exactly, but for a sample within
     * a microsecond of a bound (the timeline's precision). */
    long main_samples = (long)pp_json_num(doc, "processes.0.samples", 0);
    long between = gecko_between(whole, (long)pp_json_num(doc, "processes.0.pid", 0),
                                 pp_json_num(doc, "processes.0.window.0", 0),
                                 pp_json_num(doc, "processes.0.window.1", 0));
    pp_expect(py, main_samples >= 10 && labs(main_samples - between) <= 1,
              "%s: %ld samples of the main process in its window; the whole run's "
              "timeline has %ld there", w->name, main_samples, between);

    pp_merge(&col, "collapsed", opts, dir);
    struct pp_profile prof;
    pp_parse_collapsed(py, &col, &prof);
    pp_expect(py, prof.total == total && pp_count_with(&prof, "alpha") == alpha &&
                  pp_count_with(&prof, "beta") == beta,
              "%s: collapsed has %ld samples, alpha %ld, beta %ld; json %ld, %ld, %ld",
              w->name, prof.total, pp_count_with(&prof, "alpha"),
              pp_count_with(&prof, "beta"), total, alpha, beta);

    pp_merge(&text, "text", opts, dir);
    pp_expect(py, strstr(text.out, "  window          ") &&
                  !strstr(text.out, w->beta ? " alpha (" : " beta ("),
              "%s: text report without its window line, or with the other phase:\n%s",
              w->name, text.out);

    int seen;
    pp_merge(&ss, "speedscope", opts, dir);
    long ss_n = speedscope_samples(pp_parse_json(py, &ss), w->beta ? "alpha" : "beta", &seen);
    pp_expect(py, ss_n == total && !seen, "%s: speedscope has %ld samples (json %ld)%s",
              w->name, ss_n, total, seen ? " and the other phase" : "");

    pp_merge(&gk, "gecko", opts, dir);
    long gk_n = gecko_samples(pp_parse_json(py, &gk));
    pp_expect(py, gk_n == total, "%s: gecko has %ld samples (json %ld)", w->name, gk_n,
              total);

    /* pstats, as its users open it */
    char path[4096];
    snprintf(path, sizeof path, "%s.pstats", dir);
    size_t n = 0;
    while (opts[n])
        n++;
    const char **o2 = calloc(n + 3, sizeof *o2);
    memcpy(o2, opts, n * sizeof *o2);
    o2[n] = "-o";
    o2[n + 1] = path;
    pp_merge(&pst, "pstats", o2, dir);
    free(o2);
    pp_assert(py, pst.code == 0, "%s: pyprof-merge --format pstats: %s", w->name, pst.err);
    const char *load[] = { py->path, "-c",
        "import pstats, sys; s = pstats.Stats(sys.argv[1]); "
        "print(' '.join(sorted({k[2] for k in s.stats})))", path, NULL };
    struct pp_result ld;
    pp_run(&ld, load, NULL, 30, NULL, NULL);
    pp_expect(py, ld.exited && ld.code == 0 &&
                  (strstr(ld.out, "alpha") != NULL) == w->alpha &&
                  (strstr(ld.out, "beta") != NULL) == w->beta,
              "%s: pstats loads %s (%s)", w->name, ld.out, ld.err);
    unlink(path);

    if (!w->pprof)
        return;
    if (!pp_on_path("go")) {
        fprintf(stderr, "SKIP: windows' pprof case: go (Debian's golang-go) is not "
                        "installed\n");
        return;
    }
    snprintf(path, sizeof path, "%s.pb.gz", dir);
    o2 = calloc(n + 3, sizeof *o2);
    memcpy(o2, opts, n * sizeof *o2);
    o2[n] = "-o";
    o2[n + 1] = path;
    struct pp_result pb, top;
    pp_merge(&pb, "pprof", o2, dir);
    free(o2);
    pp_assert(py, pb.code == 0, "%s: pyprof-merge --format pprof: %s", w->name, pb.err);
    const char *args[] = { "-top", "-sample_index=wall", "-unit=ns", NULL };
    pp_go_pprof(py, &top, args, path);
    const char *of = strstr(top.out, "% of ");
    double want = pp_json_num(doc, "totals.seconds", -1) * 1e9;
    double got = of ? strtod(of + 5, NULL) : -1;
    pp_expect(py, got > 0.999 * want && got < 1.001 * want &&
                  !strstr(top.out, w->beta ? " alpha" : " beta"),
              "%s: go tool pprof -top: %.0f ns in all (json %.0f), or the other "
              "phase:\n%.1500s", w->name, got, want, top.out);
    unlink(path);
}

static void fmt(char *buf, size_t cap, const char *f, double v)
{
    snprintf(buf, cap, f, v);
}

PP_TEST(windows, since_until_and_last_keep_their_time_in_every_format,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run, all, gk;
    char secs[16];
    snprintf(secs, sizeof secs, "%.1f", SECS);
    const char *args[] = { "-S", "-I", pp_script("phases.py"), secs, NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "phases.py");
    struct phases ph;
    const char *a = strstr(run.out, "alpha "), *b = strstr(run.out, "beta ");
    pp_assert(py, a && b && sscanf(a, "alpha %lf %lf", &ph.a0, &ph.a1) == 2 &&
                  sscanf(b, "beta %lf %lf", &ph.b0, &ph.b1) == 2,
              "phases.py printed: %s", run.out);
    /* The run's start: its first process's header (written at the
     * sampler's first tick once the interpreter is ready, which may come
     * after main() began). */
    pp_merge(&all, "json", NULL, dir);
    ph.start = pp_json_num(pp_parse_json(py, &all), "processes.0.start", 0);
    pp_assert(py, ph.start > 0 && ph.start < ph.b0, "run started at %.3f", ph.start);
    pp_merge(&gk, "gecko", NULL, dir);
    const struct pp_json *whole = pp_parse_json(py, &gk);

    char lo[64], hi[64];
    fmt(lo, sizeof lo, "@%.6f", ph.a0 + EDGE);
    fmt(hi, sizeof hi, "@%.6f", ph.a1 - EDGE);
    const char *in_alpha[] = { "--since", lo, "--until", hi, NULL };
    struct want wa = { "wall-clock window in alpha", 1, 0, 1, 2, 0, 0 };
    check_window(py, dir, in_alpha, &wa, whole);

    char last[64];
    fmt(last, sizeof last, "%.3fs", ph.b1 - ph.b0 - 2 * EDGE);
    const char *in_last[] = { "--last", last, NULL };
    struct want wl = { "--last in beta", 0, 1, 0, 1, 1, 1 };
    check_window(py, dir, in_last, &wl, whole);

    char since[64], until[64];
    fmt(since, sizeof since, "%.6f", ph.b0 + EDGE - ph.start);
    fmt(until, sizeof until, "%.6fs", ph.b1 - EDGE - ph.start);
    const char *in_beta[] = { "--since", since, "--until", until, NULL };
    struct want wb = { "window after the start in beta", 0, 1, 0, 1, 1, 0 };
    check_window(py, dir, in_beta, &wb, whole);
}

Test(windows, a_bad_window_is_refused_with_what_is_wrong)
{
    static const struct { const char *a[5]; const char *says; } cases[] = {
        { { "--last", "2x", NULL }, "unknown unit" },
        { { "--since", "25:99", NULL }, "is not a time" },
        { { "--since", "3s", "--until", "2s", NULL }, "ends before it starts" },
        { { "--since", "1s", "--last", "2s", NULL }, "give one" },
    };
    const char *dir = pp_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pp_result r;
        pp_merge(&r, "text", cases[i].a, dir);
        cr_expect(r.exited && r.code == 2 && strstr(r.err, cases[i].says),
                  "%s %s: exit %d, stderr %s", cases[i].a[0], cases[i].a[1], r.code,
                  r.err);
    }
}
