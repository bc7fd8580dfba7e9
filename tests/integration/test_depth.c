/*
 * test_depth.c — the samples of a deep stack that changes faster than it
 * can be read fall at the depths where the program spent its time.
 * tests/py/descend.py goes 600 frames down and back over and over, timing
 * every call and return itself, and prints how its time in descend
 * divides among depths 1-100, 101-200, ... 501-600; the samples of
 * descend, at 1 kHz, must divide about the same way (pyprof(7),
 * "Consistent stacks": a walk the stack outran keeps what it read in
 * time, rather than being read again later at whatever depth the stack
 * then has).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define HZ      1000
#define BUCKETS 6

PP_TEST(depth, samples_of_a_fast_deep_recursion_fall_where_it_spent_its_time,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run, rep;
    const char *args[] = { "-S", "-I", pp_script("descend.py"), "6", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "descend.py");
    double truth[BUCKETS];
    const char *t = strstr(run.out, "truth ");
    pp_assert(py, t && sscanf(t, "truth %lf %lf %lf %lf %lf %lf", &truth[0],
                              &truth[1], &truth[2], &truth[3], &truth[4],
                              &truth[5]) == BUCKETS,
              "descend.py printed no truth line: %s", run.out);

    pp_merge(&rep, "collapsed", NULL, dir);
    struct pp_profile prof;
    pp_parse_collapsed(py, &rep, &prof);
    long hist[BUCKETS] = { 0 }, n = 0;
    for (size_t i = 0; i < prof.n; i++) {
        size_t d = pp_stack_count(&prof.stacks[i], "descend");
        if (!d)
            continue;
        hist[d > 600 ? BUCKETS - 1 : (d - 1) / 100] += prof.stacks[i].count;
        n += prof.stacks[i].count;
    }
    /* 6 s at 1 kHz of a program that spends a fifth to a half of its time
     * in descend (the rest folds its clock readings): far fewer would mean
     * the sampler hardly ran and nothing much was checked. */
    pp_assert(py, n >= 500, "only %ld samples of descend", n);
    double tv = 0;
    for (int b = 0; b < BUCKETS; b++) {
        double d = (double)hist[b] / (double)n - truth[b];
        tv += d < 0 ? -d : d;
    }
    tv /= 2;
    fprintf(stderr, "[%s] %ld samples of descend; per 100 frames, samples / "
            "time: %.2f/%.2f %.2f/%.2f %.2f/%.2f %.2f/%.2f %.2f/%.2f "
            "%.2f/%.2f; distance %.3f\n", py->label, n,
            (double)hist[0] / (double)n, truth[0], (double)hist[1] / (double)n,
            truth[1], (double)hist[2] / (double)n, truth[2],
            (double)hist[3] / (double)n, truth[3], (double)hist[4] / (double)n,
            truth[4], (double)hist[5] / (double)n, truth[5], tv);
    /* Total variation distance, on a quiet machine (one test at a time,
     * as CI runs them; 2 runs of 6 s each, 2026-11-27): 0.02-0.09 at
     * 1 kHz on every interpreter; the reader before, which read the whole
     * stack again whenever the second read missed its first frame, put
     * most of 3.10's samples in the first 100 frames (0.47-0.57).  Not
     * 10 kHz: descend's cycle there lasts about one tick, and ticks and
     * program can lock in step.  At load 3 and more a thread waiting for
     * a CPU is read whole by any reader, which moves it less. */
    pp_expect(py, tv <= 0.25, "the samples of descend are %.2f (total variation) "
              "from where it spent its time", tv);
    /* Nor may the turn at the bottom, where the stack returns faster than
     * it is read, lose its samples: 3.14 and 3.15 clear a frame's code as
     * they pop it, and a reader that took such a frame for a torn chain
     * read the stack again later, higher up (0.06 of the samples in
     * 501-600 frames, where the program spent 0.15-0.16 of its time;
     * now 0.11-0.13).  3.10 frees a frame object as it returns, link to
     * its caller and all, so a walk that meets one can only be read
     * again: 0.06-0.10 there (pyprof(7), "Consistent stacks"). */
    if (py->minor >= 11)
        for (int b = 0; b < BUCKETS; b++)
            pp_expect(py, (double)hist[b] / (double)n >= truth[b] / 2,
                      "frames %d-%d of descend have %.2f of its samples, "
                      "against %.2f of its time", b * 100 + 1, b * 100 + 100,
                      (double)hist[b] / (double)n, truth[b]);
}
