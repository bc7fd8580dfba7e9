/*
 * run_delay.c — the calling thread's run-queue wait (run_delay.h).
 */
#include <fcntl.h>
#include <unistd.h>

#include "base/run_delay.h"

uint64_t pp_thread_run_delay_ns(void)
{
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[96];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    uint64_t wait;
    if (n <= 0 || pp_schedstat_wait(buf, (size_t)n, &wait))
        return 0;
    return wait;
}
