/*
 * run_delay.c — the calling thread's run-queue wait (run_delay.h).
 */
#include <fcntl.h>
#include <unistd.h>

#include "base/run_delay.h"

/* One decimal field at *i, followed by a space (or a newline, or the end
 * for the last), into *v; -1 for no digits or one past 2^64. */
static int field(const char *s, size_t len, size_t *i, uint64_t *v)
{
    uint64_t x = 0;
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        unsigned d = (unsigned)(s[*i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *v = x;
    return 0;
}

int pp_schedstat_wait(const char *s, size_t len, uint64_t *wait_ns)
{
    size_t i = 0;
    uint64_t cpu, wait, slices;
    if (field(s, len, &i, &cpu) || i >= len || s[i++] != ' ' ||
        field(s, len, &i, &wait) || i >= len || s[i++] != ' ' ||
        field(s, len, &i, &slices))
        return -1;
    if (i < len && s[i] != '\n')
        return -1;
    *wait_ns = wait;
    return 0;
}

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
