/*
 * window.h — a part of a run's time (pyprof-merge --since, --until,
 * --last): the bounds as the user wrote them, and where they fall on one
 * host's clock.
 */
#ifndef PYPROF_MERGE_WINDOW_H
#define PYPROF_MERGE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

enum w_kind {
    W_NONE,          /* no bound on this side                            */
    W_AFTER_START,   /* ns after the run's start on the host             */
    W_BEFORE_END,    /* ns before the run's end on the host (--last)     */
    W_WALL,          /* a wall-clock time, ns since the epoch            */
    W_CONTROL        /* sampling window number ns's start (from) or stop
                        (until), as the files record them (--window)     */
};

struct w_bound { enum w_kind kind; uint64_t ns; };
struct m_window { struct w_bound from, until; };

/* Whether either side is bounded. */
static inline int window_set(const struct m_window *w)
{
    return w && (w->from.kind != W_NONE || w->until.kind != W_NONE);
}

/* A duration: a number with an optional unit (ms, s, m, h; seconds when
 * none), or several ("1m30s").  0, or -1 with why in err. */
int window_duration(const char *s, uint64_t *ns, char *err, size_t cap);

/* A --since or --until argument: a duration after the run's start, or a
 * wall-clock time in the local time zone ("2026-11-29 18:04:05",
 * "2026-11-29T18:04:05.25", "18:04:05" for today), or "@" and seconds
 * since the epoch.  0, or -1 with why in err. */
int window_bound(const char *s, struct w_bound *b, char *err, size_t cap);

/* The window on a host whose run started at start_ns and had its last
 * sample at end_ns (both on that host's clock): [*lo, *hi). */
void window_on_host(const struct m_window *w, uint64_t start_ns, uint64_t end_ns,
                    uint64_t *lo, uint64_t *hi);

/* How the window reads in a report: "from 10 s after the start to 20 s
 * after the start", "the last 60 s", "from 2026-11-29 18:04:05 (local
 * time) to the end". */
void window_describe(const struct m_window *w, char *buf, size_t cap);

#endif
