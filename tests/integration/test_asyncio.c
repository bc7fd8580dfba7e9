/*
 * test_asyncio.c — asyncio tasks on the stacks of the thread that runs
 * them (pyprof(7), "asyncio tasks").  tests/py/async_tasks.py has its main
 * task (asyncio's default name) gather two named workers that burn CPU
 * between awaits.  From 3.14 every sample of burn must read, outermost
 * first: the event loop's frames down to Handle._run, <task> (the main
 * task, unnamed), main at the line where it awaits the gather, <task
 * worker-a> or <task worker-b>, worker, burn.  Before 3.14 tasks are not
 * read, and the stacks must be what they always were.
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
    int tasks = py->minor >= 14;

    const struct pp_json *st = pp_json_stacks(py, pp_json_report(py, dir, "wall", 0));
    double burn = 0, good = 0, a = 0, b = 0, with_task = 0;
    char first_bad[512] = "";
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        double c = pp_json_num(s, "count", 0);
        size_t d = pp_json_len(s, "frames");
        for (size_t k = 0; k < d; k++)
            if (!strncmp(frame_at(s, k, "name"), "<task", 5)) {
                with_task += c;
                break;
            }
        if (!d || strcmp(frame_at(s, d - 1, "name"), "burn"))
            continue;
        burn += c;
        int ok;
        if (tasks) {
            const char *t = d >= 6 ? frame_at(s, d - 3, "name") : "";
            ok = d >= 6 && !strcmp(frame_at(s, d - 2, "name"), "worker") &&
                 (!strcmp(t, "<task worker-a>") || !strcmp(t, "<task worker-b>")) &&
                 !strcmp(frame_at(s, d - 3, "file"), "~") &&
                 !strcmp(frame_at(s, d - 4, "name"), "main") &&
                 frame_line(s, d - 4) == (double)gather &&
                 !strcmp(frame_at(s, d - 5, "name"), "<task>") &&
                 is_handle_run(frame_at(s, d - 6, "name"));
            a += ok && !strcmp(t, "<task worker-a>") ? c : 0;
            b += ok && !strcmp(t, "<task worker-b>") ? c : 0;
        } else {
            ok = d >= 3 && !strcmp(frame_at(s, d - 2, "name"), "worker") &&
                 is_handle_run(frame_at(s, d - 3, "name"));
        }
        good += ok ? c : 0;
        if (!ok && !first_bad[0]) {
            size_t n = 0;
            for (size_t k = d > 7 ? d - 7 : 0; k < d && n + 2 < sizeof first_bad; k++)
                n += (size_t)snprintf(first_bad + n, sizeof first_bad - n, "%s%s:%.0f",
                                      n ? " > " : "", frame_at(s, k, "name"),
                                      frame_line(s, k));
        }
    }
    fprintf(stderr, "[%s] burn: %.0f samples, %.0f as expected (worker-a %.0f, "
            "worker-b %.0f); samples with a <task> frame %.0f%s\n", py->label, burn,
            good, a, b, with_task,
            tasks ? "" : "; tasks are read from 3.14 on (pyprof(7)), so none");
    /* 1.5 s of two workers burning nearly all the time at 200 Hz: about
     * 300 samples of burn. */
    pp_expect(py, burn >= 100, "only %.0f samples of burn", burn);
    pp_expect(py, good == burn, "%.0f of %.0f samples of burn do not stand where the "
              "tasks put them (first: %s)", burn - good, burn, first_bad);
    if (tasks) {
        pp_expect(py, a >= 0.25 * burn && b >= 0.25 * burn, "worker-a %.0f and "
                  "worker-b %.0f of %.0f samples of burn", a, b, burn);
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
