/*
 * test_window.c — merge/window.c: the durations and times pyprof-merge's
 * --since, --until and --last take, what they are refused for, and where
 * a window falls on a host's run (pyprof-merge(1), TIME WINDOWS).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "window.h"

#define S 1000000000ULL

Test(window, durations_in_every_unit_and_their_sums)
{
    static const struct { const char *s; uint64_t ns; } ok[] = {
        { "90", 90 * S }, { "90s", 90 * S }, { "1.5m", 90 * S }, { "250ms", S / 4 },
        { "2h", 7200 * S }, { "1m30s", 90 * S }, { "0.000001", 1000 }, { "20us", 20000 },
    };
    char err[256];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t ns = 0;
        cr_expect(window_duration(ok[i].s, &ns, err, sizeof err) == 0 && ns == ok[i].ns,
                  "%s: %llu ns (%s)", ok[i].s, (unsigned long long)ns, err);
    }
    static const char *const bad[] = { "", "s", "-5", "5x", "1m30", "1..5s", "99999999h" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns;
        err[0] = 0;
        cr_expect(window_duration(bad[i], &ns, err, sizeof err) == -1 && err[0],
                  "'%s' was taken", bad[i]);
    }
}

Test(window, times_are_local_wall_clock_and_durations_are_after_the_start)
{
    setenv("TZ", "UTC", 1);
    tzset();
    struct w_bound b;
    char err[256];
    cr_assert(window_bound("2026-11-29 18:04:05", &b, err, sizeof err) == 0, "%s", err);
    cr_expect(b.kind == W_WALL && b.ns == 1795975445ULL * S, "%llu",
              (unsigned long long)b.ns);
    cr_assert(window_bound("2026-11-29T18:04:05.25", &b, err, sizeof err) == 0, "%s", err);
    cr_expect(b.ns == 1795975445ULL * S + S / 4);
    cr_assert(window_bound("@1795975445.5", &b, err, sizeof err) == 0, "%s", err);
    cr_expect(b.kind == W_WALL && b.ns == 1795975445ULL * S + S / 2);
    /* a time of day alone is today's */
    cr_assert(window_bound("00:00:01", &b, err, sizeof err) == 0, "%s", err);
    time_t now = time(NULL);
    cr_expect(b.ns / S == (uint64_t)(now - now % 86400 + 1), "%llu", (unsigned long long)b.ns);
    setenv("TZ", "CET-1", 1);   /* UTC+1, a POSIX rule: no zoneinfo needed */
    tzset();
    cr_assert(window_bound("2026-11-29 19:04:05", &b, err, sizeof err) == 0, "%s", err);
    cr_expect(b.ns == 1795975445ULL * S, "local time: %llu", (unsigned long long)b.ns);
    setenv("TZ", "UTC", 1);
    tzset();
    cr_assert(window_bound("1m", &b, err, sizeof err) == 0);
    cr_expect(b.kind == W_AFTER_START && b.ns == 60 * S);
    static const char *const bad[] = { "25:99", "2026-13-01 00:00", "@", "@x", "12:00:00junk" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect(window_bound(bad[i], &b, err, sizeof err) == -1, "'%s' was taken", bad[i]);
}

Test(window, a_window_falls_on_each_hosts_own_run)
{
    struct m_window w = { { W_AFTER_START, 10 * S }, { W_AFTER_START, 20 * S } };
    uint64_t lo, hi;
    window_on_host(&w, 1000 * S, 2000 * S, &lo, &hi);
    cr_expect(lo == 1010 * S && hi == 1020 * S);
    w = (struct m_window){ { W_BEFORE_END, 60 * S }, { W_NONE, 0 } };
    window_on_host(&w, 1000 * S, 2000 * S, &lo, &hi);
    cr_expect(lo == 1940 * S && hi == UINT64_MAX);
    /* --last longer than the run: all of it */
    window_on_host(&w, 10 * S, 30 * S, &lo, &hi);
    cr_expect(lo == 0);
    w = (struct m_window){ { W_NONE, 0 }, { W_WALL, 1500 * S } };
    window_on_host(&w, 1000 * S, 2000 * S, &lo, &hi);
    cr_expect(lo == 0 && hi == 1500 * S);
    char d[256];
    window_describe(&(struct m_window){ { W_BEFORE_END, 60 * S }, { W_NONE, 0 } }, d, sizeof d);
    cr_expect(!strcmp(d, "the last 60 s"), "%s", d);
    window_describe(&(struct m_window){ { W_AFTER_START, 10 * S }, { W_NONE, 0 } }, d, sizeof d);
    cr_expect(!strcmp(d, "from 10 s after the start to the end"), "%s", d);
}
