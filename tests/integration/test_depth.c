/*
 * test_depth.c — the samples of a deep stack that changes faster than it
 * can be read hold the stack the program had when they were taken.
 * tests/py/descend.py goes 600 frames down and back over and over, and
 * logs its own clock at every tenth call and return; tests/py/depth_at.py
 * looks up, for each sample pyprof took of it at 1 kHz (the gecko
 * format's tick times), how deep the program's log says the stack stood
 * at that tick, and compares that with the descend frames the sample holds,
 * per 100 frames (pyprof(7), "Consistent stacks": a walk the stack
 * outran keeps what it read in time, rather than being read again later
 * at whatever depth the stack then has).
 *
 * Not the share of the program's time per 100 frames, which descend.py
 * also prints and this test only shows: on the development VMs a tick
 * reaches a sleeping sampler late, and sooner when the program enters the
 * kernel (pyprof(7), "When ticks arrive"), so samples gather at the page
 * faults of CPython's data stack, and how they spread among those depends
 * on the VM, not on the reader (that comparison measured 0.04-0.50 here).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"
#include "pyprof/format.h"

#define HZ      1000
#define BUCKETS 6

PP_TEST(depth, samples_of_a_fast_deep_recursion_hold_the_stack_of_their_tick,
        .timeout = 150)
{
    /* descend.py's log and the gecko report (12 MB) in a directory the
     * harness removes at the end, as it removes dir. */
    const char *dir = pp_tmpdir(), *aside = pp_tmpdir();
    char log[512], gecko[512];
    snprintf(log, sizeof log, "%s/descend.log", aside);
    snprintf(gecko, sizeof gecko, "%s/report.gecko.json", aside);
    struct pp_result run, rep, cmp;
    const char *args[] = { "-S", "-I", pp_script("descend.py"), "6", log, NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "descend.py");
    double truth[BUCKETS];
    const char *t = strstr(run.out, "truth ");
    pp_assert(py, t && sscanf(t, "truth %lf %lf %lf %lf %lf %lf", &truth[0],
                              &truth[1], &truth[2], &truth[3], &truth[4],
                              &truth[5]) == BUCKETS,
              "descend.py printed no truth line: %s", run.out);

    pp_merge(&rep, "gecko", NULL, dir);
    pp_assert(py, rep.code == 0, "pyprof-merge --format gecko: %s", rep.err);
    FILE *f = fopen(gecko, "w");
    pp_assert(py, f && fwrite(rep.out, 1, rep.out_len, f) == rep.out_len &&
              fclose(f) == 0, "cannot write %s", gecko);
    const char *cargs[] = { py->path, "-S", "-I", pp_script("depth_at.py"),
                            gecko, log, NULL };
    pp_run(&cmp, cargs, NULL, 60, NULL, NULL);
    pp_assert(py, cmp.exited && cmp.code == 0, "depth_at.py: %s: %s",
              pp_describe(&cmp), cmp.err);
    long n = 0;
    double got[BUCKETS], want[BUCKETS], tv = 1;
    const char *a = strstr(cmp.out, "at-tick ");
    pp_assert(py, a && sscanf(a, "at-tick %ld %lf/%lf %lf/%lf %lf/%lf %lf/%lf "
                              "%lf/%lf %lf/%lf distance %lf", &n, &got[0],
                              &want[0], &got[1], &want[1], &got[2], &want[2],
                              &got[3], &want[3], &got[4], &want[4], &got[5],
                              &want[5], &tv) == 2 + 2 * BUCKETS,
              "depth_at.py printed no at-tick line: %s", cmp.out);
    double share = 0;     /* the program's time against the samples */
    for (int b = 0; b < BUCKETS; b++) {
        double d = got[b] - truth[b];
        share += d < 0 ? -d : d;
    }
    fprintf(stderr, "[%s] %ld samples taken inside a descent; per 100 "
            "frames, samples / stack at their ticks: %.2f/%.2f %.2f/%.2f "
            "%.2f/%.2f %.2f/%.2f %.2f/%.2f %.2f/%.2f; distance %.3f "
            "(against its time: %.2f %.2f %.2f %.2f %.2f %.2f, %.3f)\n",
            py->label, n, got[0], want[0], got[1], want[1], got[2], want[2],
            got[3], want[3], got[4], want[4], got[5], want[5], tv, truth[0],
            truth[1], truth[2], truth[3], truth[4], truth[5], share / 2);
    /* 6 s at 1 kHz of a program that spends a fifth to a half of its time
     * descending (the rest folds its clock readings): far fewer would mean
     * the sampler hardly ran and nothing much was checked. */
    pp_measure(py, "samples inside a descent", (double)n, ">=", 500);
    pp_assert(py, n >= 500, "only %ld samples taken inside a descent", n);
    /* Total variation distance; its spread over 20 runs on a quiet
     * machine and 5 beside two CPU hogs, per interpreter, is in
     * tests/integration/README.md.  A reader that reads the stack 100
     * microseconds after its tick measured 0.29 (3.11.2), 20
     * microseconds 0.045. */
    /* 3.10 loses the turn at the bottom in some runs even now that its
     * walks prefetch (below): 0.148 in 1 of the 20 quiet runs of
     * 2026-11-28 10:42, its deepest 100 frames at 0.02 against 0.15; and,
     * with the walk's budget following the host's pace, 0.194 in 1 of 6
     * runs of 23:00 (0.013-0.090 in the others; its worst bucket at 0.125
     * of its share). */
    double limit = py->minor >= 11 ? 0.10 : 0.25;
    pp_measure(py, "distance per 100 frames", tv, "<=", limit);
    pp_expect(py, tv <= limit, "the samples of descend are %.3f (total "
              "variation) from where its stack stood at their ticks", tv);
    /* Nor may the turn at the bottom, where the stack returns faster than
     * it is read, lose its samples: 3.14 and 3.15 clear a frame's code as
     * they pop it, and a reader that took such a frame for a torn chain
     * read the stack again later, higher up.  3.10 frees a frame object
     * as it returns, link to its caller and all, so a walk that meets one
     * can only be read again: its deepest 100 frames keep 0.65-0.95 of
     * their share in most runs since its walks prefetch, and 0.13 in the
     * run above (0.06-0.6 before; pyprof(7), "Consistent stacks"). */
    /* Only a bucket of 200 samples or more is judged: a 30 % shortfall is
     * then 60 samples.  In a bucket of 40 (the outermost 100 frames hold
     * about 2 % of the ticks) a dozen samples decide it: a campaign run of
     * 2026-11-28 failed 3.11.2 there (0.01 against 0.02), every other
     * bucket and interpreter well inside. */
    double worst = 1e9;
    for (int b = 0; b < BUCKETS; b++)
        if (want[b] * (double)n >= 200 && got[b] / want[b] < worst)
            worst = got[b] / want[b];
    /* Measured on 3.10 too, judged from 3.11 on (the comment above). */
    if (worst < 1e9)            /* else no bucket had 200 samples */
        pp_measure(py, "worst bucket against its ticks", worst, ">=", 0.7);
    for (int b = 0; b < BUCKETS && py->minor >= 11; b++)
        pp_expect(py, want[b] * (double)n < 200 || got[b] >= want[b] * 0.7,
                  "frames %d-%d of descend have %.2f of its samples, "
                  "against %.2f of the ticks that found the stack there",
                  b * 100 + 1, b * 100 + 100, got[b], want[b]);
}

/* Deeper than the sampler keeps (PP_MAX_DEPTH frames, innermost kept):
 * every report marks the cut with a <truncated> root and counts it
 * (pyprof(7), "Deep stacks").  20,000 frames from 3.11 on; 3.10 recurses
 * on the C stack too, and 6,000 are enough to cross the cap. */
PP_TEST(depth, a_stack_deeper_than_the_cap_is_marked_truncated_in_every_output,
        .timeout = 120)
{
    const char *depth = py->minor >= 11 ? "20000" : "6000";
    if (py->minor < 11)
        fprintf(stderr, "%s: 6,000 frames rather than 20,000 (3.10 recurses on "
                        "the C stack)\n", py->label);
    const char *dir = pp_tmpdir();
    struct pp_result run, rep;
    const char *args[] = { pp_script("very_deep.py"), depth, "0.6", NULL };
    pp_run_python(&run, py, dir, 200, NULL, args);
    pp_expect_ok(py, &run, "very_deep.py");
    pp_assert(py, strstr(run.out, "bottom"), "very_deep.py did not reach its bottom");

    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    const struct pp_json *p = pp_json_process(doc, 0, "root");
    pp_assert(py, p, "no root process in the report");
    double cut = pp_json_num(doc, "totals.truncated", -1);
    double bottom = pp_json_samples_in(doc, (long)pp_json_num(p, "pid", -1),
                                       "bottom_burn");
    pp_measure(py, "bottom_burn samples", bottom, ">=", 40);
    pp_expect(py, bottom >= 40, "bottom_burn: %g samples in 0.6 s at 200 Hz", bottom);
    pp_expect(py, cut >= bottom, "totals.truncated %g, but %g samples were at the "
              "bottom of a %s-frame recursion", cut, bottom, depth);
    pp_expect(py, pp_json_num(p, "truncated", -1) == cut,
              "the process's truncated count differs from the total's %g", cut);
    pp_expect(py, pp_json_num(doc, "totals.max_depth", -1) == PP_MAX_DEPTH,
              "totals.max_depth is not %u", PP_MAX_DEPTH);

    /* collapsed: every stack through bottom_burn starts at <truncated> and
     * keeps PP_MAX_DEPTH frames below it */
    pp_merge(&rep, "collapsed", NULL, dir);
    pp_assert(py, rep.exited && rep.code == 0, "collapsed: %s", pp_describe(&rep));
    size_t seen = 0;
    for (char *line = rep.out; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        if (strstr(line, "bottom_burn (")) {
            seen++;
            size_t frames = 1;
            for (const char *c = line; *c; c++)
                frames += *c == ';';
            pp_expect(py, !strncmp(line, "<truncated> (~:0);deep (", 24),
                      "a stack through bottom_burn does not start at <truncated>: "
                      "%.120s", line);
            pp_expect(py, frames == PP_MAX_DEPTH + 1, "a stack through bottom_burn "
                      "has %zu frames, expected <truncated> and %u", frames,
                      PP_MAX_DEPTH);
        }
        line = end ? end + 1 : NULL;
    }
    pp_expect(py, seen > 0, "collapsed: no stack through bottom_burn");

    /* the text report's totals, and the root pseudo-frame in the formats
     * that name frames */
    pp_merge(&rep, "text", NULL, dir);
    char want[64];
    snprintf(want, sizeof want, "  truncated       %.0f samples", cut);
    pp_expect(py, strstr(rep.out, want), "text: no \"%s\" line in the totals", want);
    static const char *const formats[] = { "speedscope", "gecko", "pstats", "html" };
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        pp_merge(&rep, formats[i], NULL, dir);
        pp_expect(py, rep.exited && rep.code == 0, "%s: %s", formats[i], pp_describe(&rep));
        pp_expect(py, memmem(rep.out, rep.out_len, "<truncated>", 11),
                  "%s: no <truncated> frame", formats[i]);
        /* the page's data, from which its totals say how many were cut,
         * per mode (wall first) */
        if (!strcmp(formats[i], "html")) {
            snprintf(want, sizeof want, "\"truncated\":[%.0f,", cut);
            pp_expect(py, strstr(rep.out, want), "html: the page's data lacks %s", want);
        }
    }
}
