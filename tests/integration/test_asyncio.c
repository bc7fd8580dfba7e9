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
 * its function (worker or locked), burn.  Before 3.14 tasks are not read,
 * and the stacks must be what they always were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

PP_TEST(asyncio, a_task_s_samples_stand_under_the_tasks_that_await_it, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("async_tasks.py"), "1.5", NULL };
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
        size_t d = pp_json_len(s, "frames");
        int has_task = 0;
        for (size_t k = 0; k < d && !has_task; k++)
            has_task = !strncmp(frame_at(s, k, "name"), "<task", 5);
        with_task += has_task ? c : 0;
        if (!d || strcmp(frame_at(s, d - 1, "name"), "burn"))
            continue;
        burn += c;
        int ok = 0;
        if (tasks) {
            /* from the top: burn, its caller, the task, then asyncio's own
             * frames down to main, then <task> and Handle._run */
            const char *fn = d >= 2 ? frame_at(s, d - 2, "name") : "";
            const char *t = d >= 3 ? frame_at(s, d - 3, "name") : "";
            int by_gather = !strcmp(t, "<task worker-a>") || !strcmp(t, "<task worker-b>");
            int in_group = !strcmp(t, "<task tg-worker>") || !strcmp(t, "<task locked>");
            ok = d >= 6 && (by_gather || in_group) && !strcmp(frame_at(s, d - 3, "file"), "~") &&
                 !strcmp(fn, strcmp(t, "<task locked>") ? "worker" : "locked");
            size_t k = d >= 4 ? d - 4 : 0;
            while (ok && k > 0 && strcmp(frame_at(s, k, "name"), "main")) {
                ok = strstr(frame_at(s, k, "file"), "/asyncio/") != NULL;
                k--;
            }
            ok = ok && k >= 2 && !strcmp(frame_at(s, k, "name"), "main") &&
                 frame_line(s, k) == (double)(by_gather ? gather : group) &&
                 (by_gather ? k == d - 4 : 1) &&
                 !strcmp(frame_at(s, k - 1, "name"), "<task>") &&
                 is_handle_run(frame_at(s, k - 2, "name"));
            a += ok && !strcmp(t, "<task worker-a>") ? c : 0;
            b += ok && !strcmp(t, "<task worker-b>") ? c : 0;
            grouped += ok && in_group ? c : 0;
            lock_waiter += ok && !strcmp(t, "<task locked>") ? c : 0;
        }
        /* the stack as it is without tasks: what every version before 3.14
         * has, and a 3.14+ sample whose task moved on between the reading
         * of the stack and of the task (pyprof(7)) */
        int plain = !has_task && d >= 3 && (!strcmp(frame_at(s, d - 2, "name"), "worker") ||
                                            !strcmp(frame_at(s, d - 2, "name"), "locked")) &&
                    is_handle_run(frame_at(s, d - 3, "name"));
        if (!tasks)
            ok = plain;
        else if (plain)
            untasked += c;
        good += ok ? c : 0;
        if (!ok && !(tasks && plain) && !first_bad[0]) {
            size_t n = 0;
            for (size_t k = d > 7 ? d - 7 : 0; k < d && n + 2 < sizeof first_bad; k++)
                n += (size_t)snprintf(first_bad + n, sizeof first_bad - n, "%s%s:%.0f",
                                      n ? " > " : "", frame_at(s, k, "name"),
                                      frame_line(s, k));
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
        struct pp_result rep;
        pp_merge(&rep, "collapsed", NULL, dir);
        pp_expect(py, strstr(rep.out, ";<task> (~:0);main (") &&
                  strstr(rep.out, ";<task worker-a> (~:0);worker ("),
                  "the collapsed report has no <task> frames where the JSON has");
    } else {
        pp_expect(py, with_task == 0, "%.0f samples have a <task> frame before 3.14",
                  with_task);
    }
}
