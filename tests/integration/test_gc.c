/*
 * test_gc.c — time in the cyclic garbage collector (pyprof(7), "Garbage
 * collection"): while it runs, the thread it runs on has the pseudo-frame
 * <GC> on top of the frame that started it, and the report counts those
 * samples.  tests/py/gc_churn.py measures its own time in gc.collect().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define GC_HZ 200

/* The name of frame i of a JSON stack ("" when there is none). */
static const char *frame_name(const struct pp_json *stack, size_t i)
{
    const struct pp_json *fr = pp_json_get(stack, "frames");
    if (!fr || fr->type != PP_JARR || i >= fr->n)
        return "";
    const char *n = pp_json_str(&fr->items[i], "name");
    return n ? n : "";
}

PP_TEST(gc, a_collection_is_shown_as_gc_on_top_of_the_frame_that_ran_it,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    double truth = pp_run_measuring(py, "gc_churn.py", "1.5", dir, GC_HZ, "gc_share");

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *st = pp_json_get(doc, "stacks");
    pp_assert(py, st && st->type == PP_JARR, "no stacks in the JSON report");
    double gc = 0, loop = 0, misplaced = 0, in_work = 0;
    char first_bad[256] = "";
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        double c = pp_json_num(s, "count", 0);
        size_t depth = pp_json_len(s, "frames");
        int has_gc = pp_json_stack_has(s, "<GC>");
        int collect = pp_json_stack_has(s, "collect_now");
        int work = pp_json_stack_has(s, "plain_work");
        if (collect || work)
            loop += c;
        in_work += work && has_gc ? c : 0;
        if (!has_gc)
            continue;
        gc += c;
        /* Always innermost.  In the loop, right above the Python frame that
         * called gc.collect; outside it, anywhere: before gc_churn.py turns
         * automatic collection off, one may run while the interpreter
         * starts (an import's _call_with_frames_removed, 3.12 at the
         * module's first instruction). */
        const char *under = depth >= 2 ? frame_name(s, depth - 2) : "";
        if (depth < 2 || strcmp(frame_name(s, depth - 1), "<GC>") ||
            ((collect || work) && strcmp(under, "collect_now"))) {
            misplaced += c;
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "%s > %s",
                         depth >= 2 ? frame_name(s, depth - 2) : "",
                         depth >= 1 ? frame_name(s, depth - 1) : "");
        }
    }
    pp_expect(py, misplaced == 0, "%g samples have <GC> elsewhere than on top, or in "
              "the loop elsewhere than on collect_now (first: %s)", misplaced, first_bad);
    pp_expect(py, in_work == 0, "%g samples of plain_work (no collection) have <GC>",
              in_work);
    pp_expect(py, pp_json_num(doc, "processes.0.gc_samples", -1) == gc,
              "the process's gc_samples is %g, its stacks with <GC> %g",
              pp_json_num(doc, "processes.0.gc_samples", -1), gc);
    double share = loop > 0 ? gc / loop : 0;
    fprintf(stderr, "[%s] <GC> on %.0f of the loop's %.0f samples (%.3f); the loop "
            "measured %.3f of its time in gc.collect\n", py->label, gc, loop, share,
            truth);
    /* About 300 samples of the loop: the binomial spread of the share is
     * under 0.03; 0.15 is five of those. */
    pp_measure(py, "<GC> share off the measured share", share > truth ? share - truth :
               truth - share, "<=", 0.15);
    pp_expect(py, loop >= 150 && share > truth - 0.15 && share < truth + 0.15,
              "<GC> on %.3f of the loop's %.0f samples, the loop measured %.3f of its "
              "time in the collector", share, loop, truth);

    pp_expect_totals_line(py, dir, "in GC", gc);
}
