/*
 * pyprof/unprofiled.h — the record a process leaves when it cannot be
 * profiled: the contract between the library (preload/record/not_profiled.c),
 * pyprof-run (which receives the records of processes that cannot write
 * into the output directory) and pyprof-merge (merge/unprofiled.c).
 * man/pyprof.5 documents it for users.
 *
 * A record is at most PP_UNPROF_MAX bytes of text: the magic line, then
 * "key value" lines (pid, user, parent, command, reason), each ended by a
 * newline.  Readers ignore keys they do not know.  A process that stopped
 * writing its profile (a full disk) adds image (the profile's 16-hex-digit
 * image id), stopped (wall-clock ns), errno (the error's name) and, once
 * it has ended, lost (ticks served after its last good flush); readers
 * keep, of one image's records, the one with the highest lost.  It lives in the output
 * directory as a file whose name ends in PP_UNPROF_SUFFIX, or travels as
 * one datagram to pyprof-run's abstract unix socket, whose name (without
 * the leading NUL) pyprof-run puts in PP_ENV_RUN_SOCKET.
 */
#ifndef PYPROF_UNPROFILED_H
#define PYPROF_UNPROFILED_H

#define PP_UNPROF_MAGIC      "pyprof-unprofiled 1\n"
#define PP_UNPROF_SUFFIX     ".unprofiled"
#define PP_UNPROF_MAX        4096
#define PP_ENV_RUN_SOCKET    "PYPROF_RUN_SOCKET"
#define PP_RUN_SOCKET_PREFIX "pyprof-run."

#endif
