/*
 * not_profiled.h — saying that a process could not be profiled, and why,
 * without a byte on the program's stderr: a record in the output
 * directory, or, where this process cannot write there, a datagram to
 * pyprof-run (pyprof(5), NOT-PROFILED RECORDS).
 */
#ifndef PYPROF_NOT_PROFILED_H
#define PYPROF_NOT_PROFILED_H

/* Logs "REASON; this process is not profiled" when PYPROF_LOG asks for it
 * and leaves one record per process image.  Usable wherever pp_warn is
 * (stack buffers, open/write/close, one datagram; no heap, no locks). */
void pp_not_profiled(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
