/*
 * not_profiled.h — saying that a process could not be profiled, and why,
 * without a byte on the program's stderr: a record in the output
 * directory, or, where this process cannot write there, a datagram to
 * pyprof-run (pyprof(5), NOT-PROFILED RECORDS).
 */
#ifndef PYPROF_NOT_PROFILED_H
#define PYPROF_NOT_PROFILED_H

#include <stdint.h>

/* Logs "REASON; this process is not profiled" when PYPROF_LOG asks for it
 * and leaves one record per process image.  Usable wherever pp_warn is
 * (stack buffers, open/write/close, one datagram; no heap, no locks). */
void pp_not_profiled(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* A process that was profiled until writing its file failed (a full
 * disk, a quota, an I/O error): a record naming the file's image, why
 * (err), when writing stopped (wall clock, ns), and the ticks served but
 * not in the file (lost; -1 while the process goes on).  The program is
 * not told; sampling goes on unrecorded.  Sent at the failure and again
 * with the count when the image ends; readers keep the last (pyprof(5),
 * NOT-PROFILED RECORDS).  Same constraints as pp_not_profiled; reason is
 * the text already made at the failure (no strerror at the end). */
void pp_stopped_writing(const char *reason, int err, uint64_t when_ns,
                        long long lost);

#endif
