/* own_fd.c — see own_fd.h. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/own_fd.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

static __thread int private_table __attribute__((tls_model("initial-exec")));

int own_fd_table_private(void)
{
    /* The unshared table is made without the closed range: no copy of
     * the program's fds is held, not even for a moment (a copy would keep
     * a pipe the program closes from reaching end-of-file). */
    if (syscall(SYS_close_range, 0U, ~0U, CLOSE_RANGE_UNSHARE) != 0)
        return -1;
    private_table = 1;
    return 0;
}

int own_fd_keep(void) { return private_table; }

int own_fd_is(int fd, dev_t dev, ino_t ino)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}
