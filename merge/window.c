/* window.c — see window.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "window.h"

#define NS 1000000000ULL
/* Ten years: more is a typo, and keeps sums far from overflow. */
#define MAX_DURATION_NS (10ULL * 366 * 24 * 3600 * NS)

/* A decimal number at s (digits, at most one point): its value in *v,
 * where it ends in *end. */
static int number(const char *s, const char **end, double *v)
{
    const char *p = s;
    int digits = 0, point = 0;
    for (; *p; p++) {
        if (isdigit((unsigned char)*p))
            digits++;
        else if (*p == '.' && !point)
            point = 1;
        else
            break;
    }
    if (!digits)
        return -1;
    *v = strtod(s, NULL);
    *end = p;
    return 0;
}

int window_duration(const char *s, uint64_t *ns, char *err, size_t cap)
{
    static const struct { const char *name; double ns; } units[] = {
        { "ms", 1e6 }, { "us", 1e3 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
    };
    double total = 0;
    const char *p = s;
    if (!*p) {
        snprintf(err, cap, "an empty duration");
        return -1;
    }
    while (*p) {
        double v;
        if (number(p, &p, &v) != 0) {
            snprintf(err, cap, "'%s' is not a duration (a number and ms, s, m "
                               "or h: 250ms, 90s, 1.5m, 1h30m)", s);
            return -1;
        }
        double unit = 0;
        size_t len = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t n = strlen(units[i].name);
            if (!strncmp(p, units[i].name, n)) {
                unit = units[i].ns;
                len = n;
                break;
            }
        }
        if (!len) {
            if (*p) {
                snprintf(err, cap, "'%s': unknown unit at '%s' (ms, s, m or h)", s, p);
                return -1;
            }
            if (p != s && total > 0) {
                snprintf(err, cap, "'%s': a number without a unit after one with "
                                   "a unit", s);
                return -1;
            }
            unit = 1e9;
        }
        p += len;
        total += v * unit;
        if (total > (double)MAX_DURATION_NS) {
            snprintf(err, cap, "'%s' is longer than ten years", s);
            return -1;
        }
    }
    *ns = (uint64_t)(total + 0.5);
    return 0;
}

/* Seconds' fraction after a point, as ns; 0 at the end of s. */
static int fraction(const char *s, uint64_t *ns)
{
    *ns = 0;
    if (!*s)
        return 0;
    if (*s != '.' || !isdigit((unsigned char)s[1]))
        return -1;
    uint64_t scale = NS / 10;
    for (s++; isdigit((unsigned char)*s); s++, scale /= 10)
        *ns += (uint64_t)(*s - '0') * scale;
    return *s ? -1 : 0;
}

static int wall_time(const char *s, uint64_t *ns)
{
    if (*s == '@') {
        const char *end;
        double v;
        if (number(s + 1, &end, &v) != 0 || *end || v > 1e11)
            return -1;
        *ns = (uint64_t)(v * 1e9 + 0.5);
        return 0;
    }
    static const char *const forms[] = {
        "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M", "%H:%M:%S", "%H:%M",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        struct tm tm;
        time_t now = time(NULL);
        localtime_r(&now, &tm);     /* the date, for a time of day alone */
        tm.tm_sec = 0;
        const char *rest = strptime(s, forms[i], &tm);
        uint64_t frac;
        if (!rest || fraction(rest, &frac) != 0)
            continue;
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t == (time_t)-1 || t < 0)
            return -1;
        *ns = (uint64_t)t * NS + frac;
        return 0;
    }
    return -1;
}

int window_bound(const char *s, struct w_bound *b, char *err, size_t cap)
{
    if (*s == '@' || strchr(s, ':') || strchr(s, '-')) {
        if (wall_time(s, &b->ns) != 0) {
            snprintf(err, cap, "'%s' is not a time (2026-11-29 18:04:05, "
                               "18:04:05.5, @SECONDS since the epoch) nor a "
                               "duration after the start (90s)", s);
            return -1;
        }
        b->kind = W_WALL;
        return 0;
    }
    if (window_duration(s, &b->ns, err, cap) != 0)
        return -1;
    b->kind = W_AFTER_START;
    return 0;
}

static uint64_t on_host(const struct w_bound *b, uint64_t start, uint64_t end,
                        uint64_t none)
{
    switch (b->kind) {
    case W_AFTER_START: return start + b->ns;
    case W_BEFORE_END: return end > b->ns ? end - b->ns : 0;
    case W_WALL: return b->ns;
    default: return none;
    }
}

void window_on_host(const struct m_window *w, uint64_t start_ns, uint64_t end_ns,
                    uint64_t *lo, uint64_t *hi)
{
    *lo = on_host(&w->from, start_ns, end_ns, 0);
    *hi = on_host(&w->until, start_ns, end_ns, UINT64_MAX);
}

static void bound_str(const struct w_bound *b, char *buf, size_t cap)
{
    if (b->kind == W_WALL) {
        time_t t = (time_t)(b->ns / NS);
        struct tm tm;
        char day[64];
        localtime_r(&t, &tm);
        strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm);
        unsigned ms = (unsigned)(b->ns % NS / 1000000);
        if (ms)
            snprintf(buf, cap, "%s.%03u (local time)", day, ms);
        else
            snprintf(buf, cap, "%s (local time)", day);
    } else {
        snprintf(buf, cap, "%g s %s", (double)b->ns / 1e9,
                 b->kind == W_AFTER_START ? "after the start" : "before the end");
    }
}

void window_describe(const struct m_window *w, char *buf, size_t cap)
{
    char a[96], b[96];
    if (w->from.kind == W_CONTROL) {
        snprintf(buf, cap, "sampling window %llu", (unsigned long long)w->from.ns);
        return;
    }
    if (w->from.kind == W_BEFORE_END && w->until.kind == W_NONE) {
        snprintf(buf, cap, "the last %g s", (double)w->from.ns / 1e9);
        return;
    }
    if (w->from.kind == W_NONE)
        snprintf(a, sizeof a, "the start");
    else
        bound_str(&w->from, a, sizeof a);
    if (w->until.kind == W_NONE)
        snprintf(b, sizeof b, "the end");
    else
        bound_str(&w->until, b, sizeof b);
    snprintf(buf, cap, "from %s to %s", a, b);
}
