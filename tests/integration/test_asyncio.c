/*
 * test_asyncio.c — asyncio tasks on the stacks of the thread that runs
 * them (pyprof(7), "asyncio tasks").  tests/py/async_tasks.py has its main
 * task (asyncio's default name) gather two named workers that burn CPU
 * between awaits, then run in a TaskGroup a third worker and a task that
 * burns once it has a lock another task held across a sleep.  From 3.14
 * every sample of burn must read, outermost first: the event loop's frames
 * down to Handle._run, <task> (the main task, unnamed), main at the line
 * where it awaits (the gather or the TaskGroup), asyncio's own frames of
 * that await (TaskGroup.__aexit__), <task NAME> of the task that burns,
 * its function (worker or locked), burn (C functions' pseudo-frames
 * aside).  Every stack must be one the program could have had (the call
 * graph checker, callgraph.h).  Before 3.14 tasks are not read,
 * and the stacks must be what they always were.  The tasks mode's test
 * (async_wait.py) checks where pending tasks wait against the program's
 * own clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "harness.h"
#include "json_report.h"

#define TASK_HZ 200

#define frame_at pp_json_frame

/* Handle._run; 3.10 names functions without their class. */
static int is_handle_run(const char *name)
{
    return !strcmp(name, "Handle._run") || !strcmp(name, "_run");
}

static double frame_line(const struct pp_json *stack, size_t i)
{
    const struct pp_json *fr = pp_json_get(stack, "frames");
    return fr && fr->type == PP_JARR && i < fr->n ? pp_json_num(&fr->items[i], "line", -2)
                                                 : -2;
}

/* A stack without the pseudo-frames of C functions (pyprof(7), "C
 * calls"): from 3.14 burn's loop calls time.perf_counter, and Handle._run
 * runs the task's step through Context.run. */
struct view { size_t d; size_t at[256]; const struct pp_json *s; };

static void view_of(const struct pp_json *s, struct view *v)
{
    size_t n = pp_json_len(s, "frames");
    v->s = s;
    v->d = 0;
    for (size_t i = 0; i < n && v->d < 256; i++)
        if (!pp_json_frame_is_c_call(s, i))
            v->at[v->d++] = i;
}

static const char *vname(const struct view *v, size_t i)
{
    return i < v->d ? frame_at(v->s, v->at[i], "name") : "";
}

static const char *vfile(const struct view *v, size_t i)
{
    return i < v->d ? frame_at(v->s, v->at[i], "file") : "";
}

static double vline(const struct view *v, size_t i)
{
    return i < v->d ? frame_line(v->s, v->at[i]) : -2;
}

/* Every stack of the profile in dir is one async_tasks.py could have had:
 * its graph (stackstorm.py graph FILE: its calls, awaits and tasks)
 * checked as callgraph.h says, the event loop's and asyncio's frames
 * where the program calls asyncio.run or awaits. */
static void expect_possible_stacks(const struct pp_python *py, const char *dir)
{
    struct pp_result r, rep;
    const char *argv[] = { py->path, pp_script("stackstorm.py"), "graph",
                           pp_script("async_tasks.py"), NULL };
    pp_run(&r, argv, NULL, 60, NULL, NULL);
    pp_expect_ok(py, &r, "stackstorm.py graph async_tasks.py");
    char err[256];
    struct callgraph *g = cg_parse(r.out, err, sizeof err);
    pp_assert(py, g, "stackstorm.py graph async_tasks.py: %s", err);
    pp_merge(&rep, "collapsed", NULL, dir);
    struct pp_profile prof;
    pp_parse_collapsed(py, &rep, &prof);
    long bad = 0, shown = 0;
    char first[1024] = "";
    for (size_t i = 0; i < prof.n; i++) {
        const struct pp_stack *s = &prof.stacks[i];
        size_t at;
        enum cg_verdict v = cg_check(g, (const char *const *)s->frames, s->depth, &at);
        if (v == CG_OK)
            continue;
        if (!first[0])
            cg_describe(v, at, (const char *const *)s->frames, s->depth, first,
                        sizeof first);
        if (shown++ < 3) {
            fprintf(stderr, "[%s] impossible stack (%ld samples): %s at frame %zu:\n",
                    py->label, s->count, cg_verdict_name(v), at);
            for (size_t k = 0; k < s->depth; k++)
                fprintf(stderr, "    %s\n", s->frames[k]);
        }
        bad += s->count;
    }
    pp_expect(py, bad == 0, "%ld of %ld samples are stacks async_tasks.py could never "
              "have had (more on stderr); the first: %s", bad, prof.total, first);
    cg_free(g);
}

PP_TEST(asyncio, a_task_s_samples_stand_under_the_tasks_that_await_it, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    /* -S: no site, whose start-up stacks (.pth files run from C) are
     * the interpreter's, not the program's, for the call-graph check */
    const char *args[] = { "-S", pp_script("async_tasks.py"), "1.5", NULL };
    pp_run_python(&run, py, dir, TASK_HZ, NULL, args);
    pp_expect_ok(py, &run, "async_tasks.py");
    pp_assert(py, strstr(run.out, "tasks done"), "async_tasks.py printed: %s", run.out);
    long gather = pp_script_line("async_tasks.py", "# GATHER");
    long group = pp_script_line("async_tasks.py", "# GROUP");
    int tasks = py->minor >= 14;

    const struct pp_json *st = pp_json_stacks(py, pp_json_report(py, dir, "wall", 0));
    double burn = 0, good = 0, a = 0, b = 0, with_task = 0, grouped = 0, lock_waiter = 0,
           untasked = 0;
    char first_bad[512] = "";
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        double c = pp_json_num(s, "count", 0);
        struct view v;
        view_of(s, &v);
        size_t d = v.d;
        int has_task = 0;
        for (size_t k = 0; k < d && !has_task; k++)
            has_task = !strncmp(vname(&v, k), "<task", 5);
        with_task += has_task ? c : 0;
        if (!d || strcmp(vname(&v, d - 1), "burn"))
            continue;
        burn += c;
        int ok = 0;
        if (tasks) {
            /* from the top: burn, its caller, the task, then asyncio's own
             * frames down to main, then <task> and Handle._run */
            const char *fn = d >= 2 ? vname(&v, d - 2) : "";
            const char *t = d >= 3 ? vname(&v, d - 3) : "";
            int by_gather = !strcmp(t, "<task worker-a>") || !strcmp(t, "<task worker-b>");
            int in_group = !strcmp(t, "<task tg-worker>") || !strcmp(t, "<task locked>");
            ok = d >= 6 && (by_gather || in_group) && !strcmp(vfile(&v, d - 3), "~") &&
                 !strcmp(fn, strcmp(t, "<task locked>") ? "worker" : "locked");
            size_t k = d >= 4 ? d - 4 : 0;
            while (ok && k > 0 && strcmp(vname(&v, k), "main")) {
                ok = strstr(vfile(&v, k), "/asyncio/") != NULL;
                k--;
            }
            ok = ok && k >= 2 && !strcmp(vname(&v, k), "main") &&
                 vline(&v, k) == (double)(by_gather ? gather : group) &&
                 (by_gather ? k == d - 4 : 1) &&
                 !strcmp(vname(&v, k - 1), "<task>") &&
                 is_handle_run(vname(&v, k - 2));
            a += ok && !strcmp(t, "<task worker-a>") ? c : 0;
            b += ok && !strcmp(t, "<task worker-b>") ? c : 0;
            grouped += ok && in_group ? c : 0;
            lock_waiter += ok && !strcmp(t, "<task locked>") ? c : 0;
        }
        /* the stack as it is without tasks: what every version before 3.14
         * has, and a 3.14+ sample whose task moved on between the reading
         * of the stack and of the task (pyprof(7)) */
        int plain = !has_task && d >= 3 && (!strcmp(vname(&v, d - 2), "worker") ||
                                            !strcmp(vname(&v, d - 2), "locked")) &&
                    is_handle_run(vname(&v, d - 3));
        if (!tasks)
            ok = plain;
        else if (plain)
            untasked += c;
        good += ok ? c : 0;
        if (!ok && !(tasks && plain) && !first_bad[0]) {
            size_t n = 0;
            for (size_t k = d > 7 ? d - 7 : 0; k < d && n + 2 < sizeof first_bad; k++)
                n += (size_t)snprintf(first_bad + n, sizeof first_bad - n, "%s%s:%.0f",
                                      n ? " > " : "", vname(&v, k),
                                      vline(&v, k));
        }
    }
    fprintf(stderr, "[%s] burn: %.0f samples, %.0f as expected (worker-a %.0f, "
            "worker-b %.0f, in the TaskGroup %.0f of which locked %.0f), %.0f without "
            "tasks; samples with a <task> frame %.0f%s\n", py->label, burn, good, a, b,
            grouped, lock_waiter, tasks ? untasked : 0, with_task,
            tasks ? "" : "; tasks are read from 3.14 on (pyprof(7)), so none");
    /* 1.5 s of two workers burning nearly all the time at 200 Hz: about
     * 300 samples of burn. */
    pp_expect(py, burn >= 100, "only %.0f samples of burn", burn);
    pp_expect(py, good + untasked == burn, "%.0f of %.0f samples of burn stand neither "
              "where the tasks put them nor as without tasks (first: %s)",
              burn - good - untasked, burn, first_bad);
    /* Without tasks only when the task moved on between the two reads:
     * one sample in 301 in the first fresh run. */
    pp_measure(py, "burn samples without their tasks", burn > 0 ? untasked / burn : 1,
               "<=", 0.02);
    pp_expect(py, untasked <= 0.02 * burn, "%.0f of %.0f samples of burn have no tasks",
              untasked, burn);
    if (tasks) {
        pp_expect(py, a >= 0.2 * burn && b >= 0.2 * burn, "worker-a %.0f and "
                  "worker-b %.0f of %.0f samples of burn", a, b, burn);
        /* the TaskGroup runs about a third of the burning; locked burns
         * for 0.375 s at 200 Hz once the lock is free: about 75 */
        pp_expect(py, grouped >= 0.15 * burn && lock_waiter >= 25, "in the TaskGroup "
                  "%.0f of %.0f samples of burn, under <task locked> %.0f", grouped, burn,
                  lock_waiter);
        expect_possible_stacks(py, dir);
        struct pp_result rep;
        pp_merge(&rep, "collapsed", NULL, dir);
        pp_expect(py, strstr(rep.out, ";<task> (~:0);main (") &&
                  strstr(rep.out, ";<task worker-a> (~:0);worker ("),
                  "the collapsed report has no <task> frames where the JSON has");
    } else {
        pp_expect(py, with_task == 0, "%.0f samples have a <task> frame before 3.14",
                  with_task);
        expect_possible_stacks(py, dir);
    }
}

/* The tasks mode (pyprof-merge --mode tasks): tests/py/async_wait.py's
 * named tasks wait in known places and measure the time they spend there;
 * from 3.14 the samples of each under <waiting tasks>, with its own
 * function at its marked await line just above its <task NAME>, must
 * come within 10 % of that time; every such stack must start with
 * <waiting tasks> and have the main task (<task>, main at its gather)
 * outermost.  Before 3.14 the tasks mode counts what the wall mode does. */
PP_TEST(asyncio, the_tasks_mode_accounts_for_each_waiting_task_s_time_at_its_await,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("async_wait.py"), "1.5", NULL };
    pp_run_python(&run, py, dir, TASK_HZ, NULL, args);
    pp_expect_ok(py, &run, "async_wait.py");
    pp_assert(py, strstr(run.out, "waits done"), "async_wait.py printed: %s", run.out);
    static const char *const names[] = { "sleeper", "napper", "holder", "waiter" };
    static const char *const marks[] = { "# WAIT-SLEEP", "# WAIT-NAP", "# WAIT-HOLD",
                                         "# WAIT-LOCK" };
    double measured[4] = { 0 }, sampled[4] = { 0 };
    long lines[4];
    for (int i = 0; i < 4; i++) {
        char key[64];
        snprintf(key, sizeof key, "wait %s ", names[i]);
        const char *at = strstr(run.out, key);
        pp_assert(py, at, "async_wait.py did not say how long %s waited:\n%s", names[i],
                  run.out);
        measured[i] = strtod(at + strlen(key), NULL);
        lines[i] = pp_script_line("async_wait.py", marks[i]);
    }
    const struct pp_json *tasks_doc = pp_json_report(py, dir, "tasks", 0);
    const struct pp_json *wall_doc = pp_json_report(py, dir, "wall", 0);
    double interval = pp_json_num(pp_json_process(wall_doc, run.pid, NULL), "interval_ns", 0) / 1e9;
    pp_assert(py, interval > 0, "no interval for pid %ld", (long)run.pid);
    const struct pp_json *st = pp_json_stacks(py, tasks_doc);
    double waiting = 0, bad = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        double c = pp_json_num(s, "count", 0);
        size_t d = pp_json_len(s, "frames");
        int under = 0;
        for (size_t k = 0; k < d && !under; k++)
            under = !strcmp(frame_at(s, k, "name"), "<waiting tasks>");
        if (!under)
            continue;
        waiting += c;
        /* outermost: <waiting tasks>, the main task, main at its gather */
        if (d < 3 || strcmp(frame_at(s, 0, "name"), "<waiting tasks>") ||
            strcmp(frame_at(s, 1, "name"), "<task>") || strcmp(frame_at(s, 2, "name"), "main"))
            bad += c;
        for (int t = 0; t < 4; t++) {
            char want[64];
            snprintf(want, sizeof want, "<task %s>", names[t]);
            for (size_t k = 0; k + 1 < d; k++)
                if (!strcmp(frame_at(s, k, "name"), want) &&
                    !strcmp(frame_at(s, k + 1, "name"), names[t]) &&
                    frame_line(s, k + 1) == (double)lines[t])
                    sampled[t] += c;
        }
    }
    double wall = pp_json_num(wall_doc, "totals.samples", -1);
    double all = pp_json_num(tasks_doc, "totals.samples", -1);
    fprintf(stderr, "[%s] tasks mode: %.0f samples, wall %.0f, under <waiting tasks> %.0f "
            "(%.0f not rooted at the main task)\n", py->label, all, wall, waiting, bad);
    if (py->minor < 14) {
        pp_expect(py, waiting == 0 && all == wall, "before 3.14: %.0f samples of waiting "
                  "tasks, tasks mode %.0f against wall %.0f", waiting, all, wall);
        return;
    }
    pp_expect(py, bad == 0, "%.0f samples of waiting tasks do not start <waiting tasks> > "
              "<task> > main", bad);
    pp_expect(py, all == wall + waiting, "tasks mode %.0f samples, wall %.0f plus waiting "
              "%.0f", all, wall, waiting);
    for (int t = 0; t < 4; t++) {
        double secs = sampled[t] * interval;
        fprintf(stderr, "[%s] %s waited %.3f s at line %ld by its own clock, %.3f s in "
                "%.0f samples\n", py->label, names[t], measured[t], lines[t], secs,
                sampled[t]);
        char what[64];
        snprintf(what, sizeof what, "%s: sampled wait against its clock", names[t]);
        pp_measure(py, what, measured[t] > 0 ? secs / measured[t] : 0, ">=", 0.9);
        pp_measure(py, what, measured[t] > 0 ? secs / measured[t] : 0, "<=", 1.1);
        pp_expect(py, measured[t] >= 0.3 && secs >= 0.9 * measured[t] &&
                  secs <= 1.1 * measured[t], "%s waited %.3f s at its await, the tasks "
                  "mode says %.3f s", names[t], measured[t], secs);
    }
}
