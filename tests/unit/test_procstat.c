/*
 * test_procstat.c — the /proc/PID/stat edit behind hide_thread.c: field 20
 * (num_threads) loses our thread, nothing else changes, and lines that
 * are not what they should be are left alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "hide_thread.h"

/* A real line's shape: pid (comm) state, then fields 4..52. */
static size_t stat_line(char *buf, size_t cap, const char *comm, int threads)
{
    return (size_t)snprintf(buf, cap,
        "4242 (%s) R 4241 4242 4241 34816 4242 4194304 1180 0 0 0 7 2 0 0 "
        "20 0 %d 0 123456 21000000 2200 18446744073709551615 1 1 0 0 0 0 "
        "0 16781312 2 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n", comm, threads);
}

Test(procstat, takes_our_thread_from_num_threads_only)
{
    char line[512], want[512];
    size_t len = stat_line(line, sizeof line, "python3", 2);
    size_t wlen = stat_line(want, sizeof want, "python3", 1);
    cr_assert_eq(pp_stat_hide_threads(line, len, sizeof line, 1), wlen);
    cr_assert_str_eq(line, want);
}

Test(procstat, finds_the_field_after_a_comm_with_spaces_and_parens)
{
    char line[512], want[512];
    size_t len = stat_line(line, sizeof line, "a) (b c) 9 9", 12);
    size_t wlen = stat_line(want, sizeof want, "a) (b c) 9 9", 11);
    cr_assert_eq(pp_stat_hide_threads(line, len, sizeof line, 1), wlen);
    cr_assert_str_eq(line, want);
}

Test(procstat, never_shows_fewer_than_one_thread)
{
    char line[512], want[512];
    size_t len = stat_line(line, sizeof line, "x", 1);
    stat_line(want, sizeof want, "x", 1);
    cr_assert_gt(pp_stat_hide_threads(line, len, sizeof line, 1), 0);
    cr_assert_str_eq(line, want);
}

Test(procstat, a_count_that_gets_shorter_moves_the_rest_of_the_line)
{
    char line[512], want[512];
    size_t len = stat_line(line, sizeof line, "x", 10);
    size_t wlen = stat_line(want, sizeof want, "x", 9);
    cr_assert_eq(pp_stat_hide_threads(line, len, sizeof line, 1), wlen);
    cr_assert_str_eq(line, want);
}

Test(procstat, malformed_lines_are_left_alone)
{
    const char *bad[] = { "", "4242 python3 R 1 2 3", "4242 (x) R 1 2 3\n",
                          "4242 (x) R 4241 4242 4241 34816 4242 4194304 1180 0 "
                          "0 0 7 2 0 0 20 0 zz 0\n" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char line[512];
        snprintf(line, sizeof line, "%s", bad[i]);
        cr_assert_eq(pp_stat_hide_threads(line, strlen(line), sizeof line, 1), 0,
                     "accepted: %s", bad[i]);
        cr_assert_str_eq(line, bad[i]);
    }
}
