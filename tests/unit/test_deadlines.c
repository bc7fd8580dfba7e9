/*
 * test_deadlines.c — the sampler's account of its deadlines
 * (preload/sample/deadlines.h): ticks served plus ticks missed are the
 * deadlines from the file's start to its end, however late the thread
 * learns that the file began (pyprof(7), Timing and cost).
 */
#include <criterion/criterion.h>

#include "sample/deadlines.h"

#define IV 20u

/* The deadlines k * IV with from <= k * IV <= to. */
static uint64_t on_grid(uint64_t from, uint64_t to)
{
    uint64_t first = (from + IV - 1) / IV, last = to / IV;
    return last >= first ? last - first + 1 : 0;
}

Test(deadlines, none_is_due_before_the_first)
{
    struct deadlines d;
    deadlines_init(&d, 0, IV, 0);
    cr_expect_eq(deadlines_due(&d, 19), 0);
    cr_expect_eq(deadlines_due(&d, 20), 1);
    cr_expect_eq(deadlines_due(&d, 59), 2);
}

Test(deadlines, nothing_is_counted_while_there_is_no_file)
{
    struct deadlines d;
    deadlines_init(&d, 0, IV, UINT64_MAX);
    cr_expect_eq(deadlines_pass(&d, deadlines_due(&d, 1000)), 0);
    cr_expect_eq(d.next, 1020, "the deadlines passed on are behind it");
}

Test(deadlines, an_open_file_counts_every_deadline)
{
    struct deadlines d;
    deadlines_init(&d, 1000, IV, 0);
    cr_expect_eq(deadlines_pass(&d, deadlines_due(&d, 1100)), 5);
}

/* Polling: the thread reads the clock at 100, serves that deadline with a
 * tick that creates the file, and loses its CPU on the way: the file
 * starts at 150.  At 300 it finds 120..300 due; only 160..280 are the
 * file's missed ones. */
Test(deadlines, a_file_created_late_is_charged_only_the_deadlines_after_its_start)
{
    struct deadlines d;
    deadlines_init(&d, 0, IV, UINT64_MAX);
    uint64_t due = deadlines_due(&d, 100);
    cr_assert_eq(due, 5);
    cr_expect_eq(deadlines_pass(&d, due - 1), 0);
    deadlines_pass(&d, 1);
    deadlines_file_start(&d, 150);
    due = deadlines_due(&d, 300);
    cr_assert_eq(due, 10, "120..300");
    cr_expect_eq(deadlines_pass(&d, due - 1), 7, "160..280 missed, not 120 and 140");
}

/* Timer: a signal's overruns are the expiries since the previous one;
 * those before the file's start are nobody's. */
Test(deadlines, overruns_before_the_file_are_not_missed)
{
    struct deadlines d;
    deadlines_init(&d, 0, IV, UINT64_MAX);
    deadlines_pass(&d, 1);              /* the signal of 20: no file yet  */
    deadlines_file_start(&d, 95);       /* its tick creates the file      */
    /* the next signal stands for 40, 60, 80 (overruns) and 100 */
    cr_expect_eq(deadlines_pass(&d, 3), 0);
    deadlines_pass(&d, 1);
    cr_expect_eq(d.next, 120);
    cr_expect_eq(deadlines_pass(&d, 2), 2, "120 and 140, after the start");
}

/* A run with the thread late by varying amounts: before the file, when it
 * creates it (the start well after the clock was read), and after.  Every
 * deadline from the start to the end is passed on once, served or missed,
 * and counted as the file's; no earlier one is.  (The sampler counts every
 * tick once the file is open, so the tick that creates the file, and at
 * most one more, may serve a deadline from before the start.) */
Test(deadlines, ticks_and_missed_ones_are_the_file_s_deadlines)
{
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t r = seed, now = 0, start = 0, served = 0, missed = 0;
        struct deadlines d;
        deadlines_init(&d, now, IV, UINT64_MAX);
        int open = 0;
        for (int step = 0; step < 300; step++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            now += 1 + (r >> 33) % (step % 17 ? 30 : 400);
            uint64_t due = deadlines_due(&d, now);
            if (!due)
                continue;
            missed += deadlines_pass(&d, due - 1);
            served += deadlines_pass(&d, 1);
            if (!open && step > 50) {
                /* the thread loses its CPU between the clock and the file */
                start = now + 1 + (r >> 40) % 700;
                deadlines_file_start(&d, start);
                open = 1;
                now = start + (r >> 20) % 50;
            }
        }
        cr_assert(open);
        missed += deadlines_pass(&d, deadlines_due(&d, now));
        cr_expect_eq(served + missed, on_grid(start, now),
                     "seed %llu: %llu served + %llu missed for the deadlines "
                     "from %llu to %llu", (unsigned long long)seed,
                     (unsigned long long)served, (unsigned long long)missed,
                     (unsigned long long)start, (unsigned long long)now);
    }
}

/* The sampler moves its ticks' phase (pyprof(7), "Timing and cost"):
 * later by any amount, earlier only as far as just after now, and the
 * deadlines after the moved one keep the interval. */
Test(deadlines, a_shift_moves_the_next_deadline_and_never_behind_the_clock)
{
    struct deadlines d;
    deadlines_init(&d, 1000, IV, 0);
    uint64_t first = d.next;
    cr_expect_eq(deadlines_shift(&d, 1000, (int64_t)IV / 2), first + IV / 2);
    cr_expect_eq(deadlines_due(&d, first + IV / 2 - 1), 0);
    cr_expect_eq(deadlines_due(&d, first + IV / 2 + IV), 2);
    uint64_t next = d.next;
    cr_expect_eq(deadlines_shift(&d, 1000, -(int64_t)IV / 4), next - IV / 4);
    /* now just short of the next deadline: it may move to just after now */
    uint64_t now = d.next - 10;
    cr_expect_eq(deadlines_shift(&d, now, -(int64_t)IV / 2), now + 1);
    cr_expect_eq(deadlines_due(&d, now), 0);
    /* and not at all when it is due already */
    now = d.next;
    cr_expect_eq(deadlines_shift(&d, now, -5), now);
}
