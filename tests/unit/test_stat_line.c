/*
 * test_stat_line.c — the /proc/PID/stat edit behind hooks/stat_filter.c: field 20
 * (num_threads) loses our thread, nothing else changes, and lines that
 * are not what they should be are left alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "hooks/stat_filter.h"

/* A real line's shape: pid (comm) state, then fields 4..52. */
static size_t stat_line(char *buf, size_t cap, const char *comm, int threads)
{
    return (size_t)snprintf(buf, cap,
        "4242 (%s) R 4241 4242 4241 34816 4242 4194304 1180 0 0 0 7 2 0 0 "
        "20 0 %d 0 123456 21000000 2200 18446744073709551615 1 1 0 0 0 0 "
        "0 16781312 2 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n", comm, threads);
}

/* field 20 loses our thread, never going below 1, wherever it sits: after
 * a comm with spaces and parentheses, and when its digits get fewer */
Test(stat_line, takes_our_thread_from_num_threads_and_nothing_else)
{
    static const struct { const char *comm; int before, after; } cases[] = {
        { "python3", 2, 1 }, { "a) (b c) 9 9", 12, 11 }, { "x", 1, 1 }, { "x", 10, 9 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char line[512], want[512];
        size_t len = stat_line(line, sizeof line, cases[i].comm, cases[i].before);
        size_t wlen = stat_line(want, sizeof want, cases[i].comm, cases[i].after);
        cr_assert_eq(stat_line_hide_threads(line, len, sizeof line, 1), wlen,
                     "comm \"%s\", %d threads", cases[i].comm, cases[i].before);
        cr_assert_str_eq(line, want);
    }
}

Test(stat_line, malformed_lines_are_left_alone)
{
    const char *bad[] = { "", "4242 python3 R 1 2 3", "4242 (x) R 1 2 3\n",
                          "4242 (x) R 4241 4242 4241 34816 4242 4194304 1180 0 "
                          "0 0 7 2 0 0 20 0 zz 0\n" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char line[512];
        snprintf(line, sizeof line, "%s", bad[i]);
        cr_assert_eq(stat_line_hide_threads(line, strlen(line), sizeof line, 1), 0,
                     "accepted: %s", bad[i]);
        cr_assert_str_eq(line, bad[i]);
    }
}
