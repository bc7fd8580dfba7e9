/* own_fd.c — see own_fd.h. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "own_fd.h"

int pp_fd_high(int fd)
{
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, 500);
    if (hi < 0)
        return fd;
    close(fd);
    return hi;
}

int pp_fd_is(int fd, dev_t dev, ino_t ino)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}
