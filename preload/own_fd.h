/*
 * own_fd.h — the library's own file descriptors (the profile, the
 * /proc/self/mem fallback) in programs that close every fd or dup2 onto
 * low numbers: kept away from those numbers, and recognised by device and
 * inode before every use, so that an fd the program now owns is never
 * written, read or closed.
 */
#ifndef PYPROF_OWN_FD_H
#define PYPROF_OWN_FD_H

#include <sys/types.h>

/* fd moved to a number >= 500 (close-on-exec), or fd itself if that
 * fails.  Returns the fd to use. */
int pp_fd_high(int fd);

/* Whether fd is open on the file (dev, ino). */
int pp_fd_is(int fd, dev_t dev, ino_t ino);

#endif
