/*
 * test_exceptions.c — samples taken while a thread raises or handles an
 * exception (pyprof(7), "Exceptions"; --mode exception in
 * pyprof-merge(1)).  tests/py/exc_heavy.py measures its own time inside
 * except blocks, in a frame and in a generator, and keeps a thread asleep
 * in one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define EXC_HZ 200

PP_TEST(exceptions, exception_mode_keeps_the_samples_taken_in_except_blocks,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    const char *args[] = { "2", NULL };
    double truth = pp_run_measuring(py, "exc_heavy.py", args, dir, EXC_HZ, "handled_share");

    const struct pp_json *wall = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *exc = pp_json_report(py, dir, "exception", 0);
    long pid = pp_json_pid_running(wall, "plain_work");
    pp_assert(py, pid > 0, "no process ran plain_work");
    const char *fns[] = { "handler_work", "gen_handler", "sleeper", "plain_work" };
    double w[4], e[4];
    for (int i = 0; i < 4; i++) {
        w[i] = pp_json_samples_in(wall, pid, fns[i]);
        e[i] = pp_json_samples_in(exc, pid, fns[i]);
    }
    fprintf(stderr, "[%s] wall / exception samples: handler_work %.0f / %.0f, "
            "gen_handler %.0f / %.0f, sleeper %.0f / %.0f, plain_work %.0f / %.0f; "
            "measured handled share %.3f\n", py->label, w[0], e[0], w[1], e[1], w[2],
            e[2], w[3], e[3], truth);
    /* No exception is anywhere on plain_work's stack. */
    pp_expect(py, e[3] == 0, "%.0f samples of plain_work are in exception mode", e[3]);
    /* In an except block for all of their samples: a frame's, a
     * generator's, and a sleeping thread's. */
    for (int i = 0; i < 3; i++) {
        pp_measure(py, fns[i], w[i] > 0 ? e[i] / w[i] : 0, ">=", 0.95);
        pp_expect(py, w[i] >= 20 && e[i] >= 0.95 * w[i], "%s: %.0f of its %.0f wall "
                  "samples in exception mode", fns[i], e[i], w[i]);
    }
    /* About 400 samples of the loop: the binomial spread of the share is
     * under 0.025; 0.10 is four of those. */
    double loop = w[0] + w[1] + w[3], share = loop > 0 ? (e[0] + e[1]) / loop : 0;
    pp_measure(py, "exception share off the measured share",
               share > truth ? share - truth : truth - share, "<=", 0.10);
    pp_expect(py, loop >= 200 && share > truth - 0.10 && share < truth + 0.10,
              "exception mode has %.3f of the loop's %.0f samples, the loop measured "
              "%.3f of its time in except blocks", share, loop, truth);
    /* Totals: the mode's samples, and each process's count in wall mode. */
    double total = pp_json_num(exc, "totals.samples", -1),
           counted = pp_json_num(wall, "totals.exception_samples", -2);
    pp_expect(py, total == counted, "exception mode has %.0f samples, wall mode's "
              "totals count %.0f with an exception", total, counted);
    pp_expect_totals_line(py, dir, "in exceptions", counted);
}
