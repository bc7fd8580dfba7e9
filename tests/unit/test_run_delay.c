/*
 * test_run_delay.c — the run-queue wait behind a fork child's spawn
 * window (base/run_delay.h): read from a schedstat line, refused from
 * anything else, and this thread's own count readable where the kernel
 * keeps one.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "base/run_delay.h"

Test(run_delay, the_second_field_of_a_schedstat_line_is_the_wait)
{
    static const struct { const char *line; uint64_t wait; } ok[] = {
        { "0 685676 1\n", 685676 },
        { "123456789 0 42\n", 0 },
        { "1 18446744073709551615 3", UINT64_MAX },
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        uint64_t w = 7;
        cr_assert_eq(pp_schedstat_wait(ok[i].line, strlen(ok[i].line), &w), 0,
                     "%s", ok[i].line);
        cr_assert_eq(w, ok[i].wait, "%s", ok[i].line);
    }
}

Test(run_delay, lines_of_another_shape_are_refused)
{
    const char *bad[] = { "", "\n", "12 34\n", "12  34 5\n", "a 1 2\n", "1 2 3 4\n",
                          "1 18446744073709551616 3\n", "1 -2 3\n", "1 2 3x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t w = 7;
        cr_assert_eq(pp_schedstat_wait(bad[i], strlen(bad[i]), &w), -1, "\"%s\"", bad[i]);
        cr_assert_eq(w, 7, "\"%s\" wrote the result", bad[i]);
    }
    /* a line cut short by the buffer: no newline after the third field is
     * fine, but a cut inside the second is not a line */
    uint64_t w;
    cr_assert_eq(pp_schedstat_wait("1 23", 4, &w), -1);
}

/* Where the kernel keeps schedstat, a thread that yields to a busy sibling
 * has waited; the count never goes down. */
Test(run_delay, this_threads_wait_is_read_and_never_goes_down)
{
    if (access("/proc/thread-self/schedstat", R_OK) != 0)
        cr_skip_test("no /proc/thread-self/schedstat here");
    uint64_t a = pp_thread_run_delay_ns();
    for (int i = 0; i < 100; i++)
        usleep(100);
    uint64_t b = pp_thread_run_delay_ns();
    cr_assert_geq(b, a);
}
