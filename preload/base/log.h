/*
 * log.h — diagnostics on stderr or PYPROF_LOG_FILE, only when PYPROF_LOG
 * asks for them.  Formats into a stack
 * buffer and issues one write(2), so it is usable from the sampler thread
 * and from atfork handlers; not from a vfork child (no need there).
 */
#ifndef PYPROF_LOG_H
#define PYPROF_LOG_H

void pp_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Errors and the once-per-process warnings: level 1.  What leaves a
 * process unprofiled goes through pp_not_profiled (not_profiled.h), which
 * also logs. */
void pp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whatever the level: only for what the user asked to hear about and
 * could not be told otherwise (a PYPROF_LOG not understood). */
void pp_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
