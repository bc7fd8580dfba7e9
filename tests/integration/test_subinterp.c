/*
 * test_subinterp.c — work in subinterpreters (pyprof(7),
 * "Subinterpreters"): each OS thread is one thread of the report however
 * many thread states CPython gives it, a thread that called into a
 * subinterpreter is sampled as one stack (its callers, the pseudo-frame
 * <interpreter N>, the work), every sample says its interpreter, and the
 * report groups and filters by it.  tests/py/subinterp.py uses the module
 * each version has (_xxsubinterpreters, _interpreters,
 * concurrent.interpreters), so every interpreter is tested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define SUB_HZ 200

struct sub_roles {
    long main;
    long tid[2], interp[2];    /* interp -1: a pool worker's (not said) */
    size_t n;
};

static void parse_roles(const struct pp_python *py, const char *out,
                        struct sub_roles *r)
{
    memset(r, 0, sizeof *r);
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        long a, b;
        if (sscanf(l, "main %ld", &a) == 1)
            r->main = a;
        else if (sscanf(l, "sub %ld %ld", &a, &b) == 2 && r->n < 2) {
            r->tid[r->n] = a;
            r->interp[r->n++] = b;
        } else if (sscanf(l, "pool %ld", &a) == 1 && r->n < 2) {
            r->tid[r->n] = a;
            r->interp[r->n++] = -1;
        }
    }
    pp_assert(py, r->main && r->n == 2, "subinterp.py did not name its threads:\n%s",
              out);
}

/* What subinterp.py printed with the thread ids left out and the lines
 * sorted (the two threads report in either order): what a run without
 * pyprof prints too. */
static char *without_ids(const char *out)
{
    char *lines[16];
    size_t n = 0, len = 0;
    for (const char *l = out; l && *l && n < 16;
         l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char role[16];
        long tid, in = -1;
        int k = sscanf(l, "%15s %ld %ld", role, &tid, &in);
        char buf[64];
        snprintf(buf, sizeof buf, k == 3 ? "%s %ld\n" : "%s\n", k >= 1 ? role : "?", in);
        lines[n++] = strdup(buf);
        len += strlen(buf);
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *t = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = t;
        }
    char *all = calloc(1, len + 1);
    for (size_t i = 0; i < n; i++) {
        strcat(all, lines[i]);
        free(lines[i]);
    }
    return all;
}

/* subinterp.py SECONDS MODE at SUB_HZ into a new directory, and without
 * pyprof: the same status and, ids aside, the same output. */
static const char *run_mode(const struct pp_python *py, const char *mode,
                            struct sub_roles *r)
{
    const char *dir = pp_tmpdir();
    struct pp_result plain, pre;
    const char *argv[] = { py->path, pp_script("subinterp.py"), "1.0", mode, NULL };
    pp_run_twice(&plain, &pre, argv, dir, SUB_HZ, 60);
    pp_expect_ok(py, &plain, "subinterp.py without pyprof");
    pp_expect_ok(py, &pre, "subinterp.py");
    char *a = without_ids(plain.out), *b = without_ids(pre.out);
    pp_expect(py, !strcmp(a, b), "subinterp.py printed, without pyprof:\n%s\n"
              "and under it:\n%s", a, b);
    free(a);
    free(b);
    parse_roles(py, pre.out, r);
    return dir;
}

/* Each of the program's three threads is listed once, and no other. */
static void one_record_each(const struct pp_python *py, const struct pp_json *doc,
                            const struct sub_roles *r)
{
    const struct pp_json *ths = pp_json_get(doc, "processes.0.threads");
    pp_assert(py, ths && ths->type == PP_JARR, "no threads in the JSON report");
    long want[3] = { r->main, r->tid[0], r->tid[1] };
    for (int k = 0; k < 3; k++) {
        size_t seen = 0;
        for (size_t i = 0; i < ths->n; i++)
            seen += (long)pp_json_num(&ths->items[i], "tid", -1) == want[k];
        pp_expect(py, seen == 1, "thread %ld has %zu thread records, expected 1 "
                  "(%zu records in all)", want[k], seen, ths->n);
    }
    pp_expect(py, ths->n == 3, "%zu thread records for the program's 3 threads",
              ths->n);
}

/* Index of the first frame named name in a JSON stack, or -1. */
static long frame_at(const struct pp_json *stack, const char *name)
{
    const struct pp_json *fr = pp_json_get(stack, "frames");
    for (size_t i = 0; fr && fr->type == PP_JARR && i < fr->n; i++) {
        const char *n = pp_json_str(&fr->items[i], "name");
        if (n && !strcmp(n, name))
            return (long)i;
    }
    return -1;
}

/* Every sample of work (the function run in a subinterpreter) says the
 * interpreter of its thread and stands under <interpreter N>, under
 * caller (the function that called into it in the main interpreter); the
 * main thread's samples say the main one.  Returns the samples of work
 * per subinterpreter thread in got[]. */
static void joined_under_callers(const struct pp_python *py, const struct pp_json *doc,
                                 const struct sub_roles *r, const char *work,
                                 const char *caller, long got[2])
{
    const struct pp_json *st = pp_json_get(doc, "stacks");
    pp_assert(py, st && st->type == PP_JARR, "no stacks in the JSON report");
    size_t wrong = 0, main_wrong = 0;
    char why[512] = "";
    got[0] = got[1] = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        long tid = (long)pp_json_num(s, "tid", -1);
        long in = (long)pp_json_num(s, "interpreter", -1);
        long count = (long)pp_json_num(s, "count", 0);
        if (tid == r->main && in != 0)
            main_wrong += (size_t)count;
        long w = frame_at(s, work);
        if (w < 0)
            continue;
        int k = tid == r->tid[0] ? 0 : tid == r->tid[1] ? 1 : -1;
        char mark[48];
        snprintf(mark, sizeof mark, "<interpreter %ld>", in);
        long at = frame_at(s, mark), c = frame_at(s, caller);
        int ok = k >= 0 && in > 0 && (r->interp[k] < 0 || in == r->interp[k]) &&
                 at >= 0 && c >= 0 && c < at && at < w;
        if (!ok) {
            wrong += (size_t)count;
            if (!why[0])
                snprintf(why, sizeof why, "tid %ld interpreter %ld: %s at %ld, %s at %ld, "
                         "%s at %ld", tid, in, caller, c, mark, at, work, w);
        } else {
            got[k] += count;
        }
    }
    pp_expect(py, wrong == 0, "%zu samples of %s not under %s > <interpreter N> of "
              "their thread's interpreter (first: %s)", wrong, work, caller, why);
    pp_expect(py, main_wrong == 0, "%zu samples of the main thread not in the main "
              "interpreter", main_wrong);
    /* Else nothing above was checked: 1 s at 200 Hz gives about 100 each. */
    for (int k = 0; k < 2; k++) {
        pp_measure(py, "samples of a subinterpreter's work", (double)got[k], ">=", 20);
        pp_expect(py, got[k] >= 20, "thread %ld: %ld samples of %s under its callers",
                  r->tid[k], got[k], work);
    }
}

/* subinterp.py in mode, then one_record_each and joined_under_callers;
 * returns the wall-mode JSON report. */
static const struct pp_json *run_and_check(const struct pp_python *py, const char *mode,
                                           const char *work, const char *caller,
                                           struct sub_roles *r, long got[2])
{
    const char *dir = run_mode(py, mode, r);
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    one_record_each(py, doc, r);
    joined_under_callers(py, doc, r, work, caller, got);
    return doc;
}

PP_TEST(subinterp, a_thread_in_a_subinterpreter_is_one_thread_under_its_callers,
        .timeout = 120)
{
    struct sub_roles r;
    long got[2];
    const struct pp_json *doc = run_and_check(py, "long", "sub_burn", "run_in_sub",
                                              &r, got);
    /* The process's samples by interpreter agree with the stacks'. */
    const struct pp_json *ins = pp_json_get(doc, "processes.0.interpreters");
    pp_assert(py, ins && ins->type == PP_JARR, "no interpreters in the process");
    for (int k = 0; k < 2; k++) {
        const struct pp_json *e = NULL;
        for (size_t i = 0; i < ins->n; i++)
            if ((long)pp_json_num(&ins->items[i], "id", -1) == r.interp[k])
                e = &ins->items[i];
        pp_expect(py, e && pp_json_num(e, "samples", 0) >= (double)got[k],
                  "interpreter %ld: %g samples in the process's list, %ld of "
                  "sub_burn alone", r.interp[k], e ? pp_json_num(e, "samples", 0) : -1,
                  got[k]);
    }
    fprintf(stderr, "[%s] sub_burn %ld and %ld samples in interpreters %ld and %ld\n",
            py->label, got[0], got[1], r.interp[0], r.interp[1]);
}

/* A thread that makes one short call after another gets a new thread
 * state in the subinterpreter for each: still one thread. */
PP_TEST(subinterp, many_short_calls_into_a_subinterpreter_are_still_one_thread,
        .timeout = 120)
{
    struct sub_roles r;
    long got[2];
    run_and_check(py, "churn", "sub_burn", "run_in_sub", &r, got);
}

/* InterpreterPoolExecutor (3.14+): its workers are threads of the main
 * interpreter that run each task in their own subinterpreter. */
PP_TEST(subinterp, an_interpreter_pool_shows_each_worker_once_under_its_loop,
        .timeout = 120)
{
    if (py->minor < 14) {
        fprintf(stderr, "[%s] SKIP: InterpreterPoolExecutor is 3.14+\n", py->label);
        return;
    }
    struct sub_roles r;
    long got[2];
    run_and_check(py, "pool", "pool_task", "WorkerContext.run", &r, got);
}

/* --interpreter and --group interpreter, and the text report's line. */
PP_TEST(subinterp, the_report_groups_and_filters_by_interpreter, .timeout = 120)
{
    struct sub_roles r;
    const char *dir = run_mode(py, "long", &r);
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *st = pp_json_get(doc, "stacks");
    pp_assert(py, st && st->type == PP_JARR, "no stacks");
    double by[3] = { 0, 0, 0 };       /* main, interp[0], interp[1] */
    for (size_t i = 0; i < st->n; i++) {
        long in = (long)pp_json_num(&st->items[i], "interpreter", -1);
        double c = pp_json_num(&st->items[i], "count", 0);
        by[in == 0 ? 0 : in == r.interp[0] ? 1 : in == r.interp[1] ? 2 : 0] += c;
    }
    struct pp_result rep;
    for (int k = 0; k < 3; k++) {
        char id[24];
        snprintf(id, sizeof id, "%ld", k ? r.interp[k - 1] : 0);
        const char *only[] = { "--interpreter", k ? id : "main", NULL };
        pp_merge(&rep, "json", only, dir);
        const struct pp_json *one = pp_parse_json(py, &rep);
        double total = pp_json_num(one, "totals.samples", -1);
        pp_expect(py, by[k] > 0 && total == by[k], "--interpreter %s: %g samples, the "
                  "stacks of that interpreter have %g", only[1], total, by[k]);
        const struct pp_json *ost = pp_json_get(one, "stacks");
        size_t other = 0;
        for (size_t i = 0; ost && i < ost->n; i++)
            other += (long)pp_json_num(&ost->items[i], "interpreter", -1) !=
                     (k ? r.interp[k - 1] : 0);
        pp_expect(py, other == 0, "--interpreter %s: %zu stacks of another", only[1],
                  other);
    }
    const char *group[] = { "--group", "interpreter", NULL };
    pp_merge(&rep, "collapsed", group, dir);
    pp_assert(py, rep.exited && rep.code == 0, "collapsed: %s", pp_describe(&rep));
    size_t lines = 0, bad = 0;
    for (const char *l = rep.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        lines++;
        long in = -1;
        if (!strncmp(l, "interpreter main;", 17))
            in = 0;
        else if (sscanf(l, "interpreter %ld;", &in) != 1)
            in = -1;
        const char *eol = strchr(l, '\n');
        size_t len = eol ? (size_t)(eol - l) : strlen(l);
        char *line = strndup(l, len);
        int sub = strstr(line, ";sub_burn") != NULL;
        bad += in < 0 || (sub && in != r.interp[0] && in != r.interp[1]) ||
               (!sub && strstr(line, ";main_burn") && in != 0);
        free(line);
    }
    pp_expect(py, lines > 0 && bad == 0, "--group interpreter: %zu of %zu lines without "
              "the root of their interpreter:\n%.2000s", bad, lines, rep.out);
    pp_merge(&rep, "text", NULL, dir);
    char want[96];
    snprintf(want, sizeof want, "  interpreters    main: %.0f,", by[0]);
    pp_expect(py, strstr(rep.out, want), "the text report has no \"%s\" line:\n%.3000s",
              want, rep.out);
}
