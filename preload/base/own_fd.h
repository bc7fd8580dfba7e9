/*
 * own_fd.h — the library's own file descriptors (the profile, the
 * /proc/self/mem fallback) are never in the program's fd table.
 *
 * The sampler thread leaves the table it shares with the program's threads
 * for a private, empty one (close_range with CLOSE_RANGE_UNSHARE), and only
 * there do fds of ours stay open: the program's listing of /proc/self/fd,
 * its close-all loops, dup2 onto any number, fork and exec never see or
 * touch them.  Where the kernel refuses (before Linux 5.9, seccomp), or in
 * any other thread, an fd of ours lives only for the one operation that
 * opened it.  Either way a file reopened by path is written or read only
 * if it still is the one we created (device and inode).
 */
#ifndef PYPROF_OWN_FD_H
#define PYPROF_OWN_FD_H

#include <sys/types.h>

/* Gives the calling thread a private, empty fd table.  Returns 0, or -1
 * (the thread keeps sharing the program's table). */
int own_fd_table_private(void);

/* Whether the calling thread has its private table: fds of ours may stay
 * open between uses. */
int own_fd_keep(void);

/* Whether fd is open on the file (dev, ino). */
int own_fd_is(int fd, dev_t dev, ino_t ino);

#endif
