/*
 * settings.h — the numeric PYPROF_* settings (pyprof(7), ENVIRONMENT):
 * their ranges and defaults, read alike by the preload, which falls back
 * to the default on a bad value, and by pyprof-run, which says once for
 * the whole tree what was done with it.
 */
#ifndef PYPROF_SETTINGS_H
#define PYPROF_SETTINGS_H

#include <errno.h>
#include <stdlib.h>

#define PP_DEFAULT_HZ        100
#define PP_MAX_HZ            200000
#define PP_DEFAULT_FLUSH_MS  200
/* Time segments (pyprof(7), "Bounded disk"): each process starts a new
 * file after this many seconds or KiB; 0: never (the default). */
#define PP_MAX_SEGMENT_S     604800
#define PP_MAX_SEGMENT_KB    (4u << 20)

struct pp_setting { const char *name; unsigned lo, hi, def; };

/* PYPROF_LOG's default is 1 when PYPROF_LOG_FILE is set (pyprof(7)). */
#define PP_SETTINGS {                                          \
    { "PYPROF_HZ", 1, PP_MAX_HZ, PP_DEFAULT_HZ },              \
    { "PYPROF_FOLLOW", 0, 1, 1 },                              \
    { "PYPROF_FLUSH_MS", 1, 60000, PP_DEFAULT_FLUSH_MS },      \
    { "PYPROF_LOG", 0, 2, 0 },                                 \
    { "PYPROF_SEGMENT_S", 0, PP_MAX_SEGMENT_S, 0 },            \
    { "PYPROF_SEGMENT_KB", 0, PP_MAX_SEGMENT_KB, 0 },          \
}

/* An unsigned decimal in [lo, hi] into *out; 0, or -1 if s is not one. */
static inline int pp_parse_uint(const char *s, unsigned lo, unsigned hi,
                                unsigned *out)
{
    if (!s || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return -1;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

#endif
