/*
 * test_gc.c — time in the cyclic garbage collector (pyprof(7), "Garbage
 * collection"): while it runs, the thread it runs on has the pseudo-frame
 * <GC> on top of the frame that started it (from 3.14, of the C function
 * that frame called), and the report counts those samples.  tests/py/gc_churn.py measures its own time in gc.collect().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define GC_HZ 200

static const char *frame_name(const struct pp_json *stack, size_t i)
{
    return pp_json_frame(stack, i, "name");
}

/* Runs gc_churn.py in mode and checks its <GC> samples: always
 * innermost; in the loop only in stacks of collector (the function whose
 * calls or allocations start the collections), right above it when
 * right_above; their share of the loop's samples within 0.15 of the share
 * the program measured. */
static void check_gc(const struct pp_python *py, const char *mode,
                     const char *collector, int right_above)
{
    const char *dir = pp_tmpdir();
    const char *args[] = { "1.5", mode, NULL };
    double truth = pp_run_measuring(py, "gc_churn.py", args, dir, GC_HZ, "gc_share");

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *st = pp_json_stacks(py, doc);
    double gc = 0, loop = 0, misplaced = 0, in_work = 0, loop_gc = 0;
    char first_bad[256] = "";
    for (size_t i = 0; i < st->n; i++) {
        const struct pp_json *s = &st->items[i];
        double c = pp_json_num(s, "count", 0);
        size_t depth = pp_json_len(s, "frames");
        int has_gc = pp_json_stack_has(s, "<GC>");
        int collect = pp_json_stack_has(s, collector);
        int work = pp_json_stack_has(s, "plain_work");
        if (collect || work)
            loop += c;
        in_work += work && has_gc ? c : 0;
        if (!has_gc)
            continue;
        gc += c;
        loop_gc += collect ? c : 0;
        /* Outside the loop a collection may stand on any frame: before
         * gc_churn.py turns automatic collection off, one may run while
         * the interpreter starts (an import's _call_with_frames_removed,
         * 3.12 at the module's first instruction). */
        const char *under = depth >= 2 ? frame_name(s, depth - 2) : "";
        /* From 3.14 the C function the frame called (gc.collect) stands
         * between them (pyprof(7), "C calls"). */
        if (depth >= 3 && pp_json_frame_is_c_call(s, depth - 2))
            under = frame_name(s, depth - 3);
        if (depth < 2 || strcmp(frame_name(s, depth - 1), "<GC>") ||
            (collect && right_above && strcmp(under, collector))) {
            misplaced += c;
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "%s > %s",
                         depth >= 2 ? frame_name(s, depth - 2) : "",
                         depth >= 1 ? frame_name(s, depth - 1) : "");
        }
    }
    pp_expect(py, misplaced == 0, "%s: %g samples have <GC> elsewhere than on top, or "
              "in the loop elsewhere than on %s (first: %s)", mode, misplaced, collector,
              first_bad);
    pp_expect(py, in_work == 0, "%s: %g samples of plain_work (no collection) have <GC>",
              mode, in_work);
    pp_expect(py, pp_json_num(doc, "processes.0.gc_samples", -1) == gc,
              "%s: the process's gc_samples is %g, its stacks with <GC> %g", mode,
              pp_json_num(doc, "processes.0.gc_samples", -1), gc);
    double share = loop > 0 ? loop_gc / loop : 0;
    fprintf(stderr, "[%s] %s: <GC> on %.0f of the loop's %.0f samples (%.3f); the loop "
            "measured %.3f of its time collecting\n", py->label, mode, loop_gc, loop,
            share, truth);
    /* About 300 samples of the loop: the binomial spread of the share is
     * under 0.03; 0.15 is five of those. */
    char what[64];
    snprintf(what, sizeof what, "%s: <GC> share off the measured share", mode);
    pp_measure(py, what, share > truth ? share - truth : truth - share, "<=", 0.15);
    pp_expect(py, loop >= 150 && share > truth - 0.15 && share < truth + 0.15,
              "%s: <GC> on %.3f of the loop's %.0f samples, the loop measured %.3f of "
              "its time in the collector", mode, share, loop, truth);
    pp_expect_totals_line(py, dir, "in GC", gc);
}

PP_TEST(gc, a_collection_is_shown_as_gc_on_top_of_the_frame_that_ran_it,
        .timeout = 120)
{
    check_gc(py, "explicit", "collect_now", 1);
}

/* Collections the interpreter starts itself as a frame allocates, full
 * ones among them: <GC> stands on that frame's stack, above its callbacks
 * (gc_churn.py's timer) when they run. */
PP_TEST(gc, an_automatic_collection_is_shown_on_the_stack_that_allocated,
        .timeout = 120)
{
    check_gc(py, "auto", "alloc_work", 0);
}
