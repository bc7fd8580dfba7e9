/*
 * log.c — one write(2) per message, formatted on the stack, so it works
 * from the sampler thread, signal-free contexts and atfork handlers.
 * Nothing is written unless PYPROF_LOG (or PYPROF_LOG_FILE) asks for it:
 * the program's stderr is the program's (pyprof(7), DIAGNOSTICS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/own_fd.h"
#include "base/identity.h"

static void emit(const char *fmt, va_list ap)
{
    char buf[1024];
    int saved = errno;
    int n = snprintf(buf, sizeof buf, "pyprof[%d]: ", (int)getpid());
    if (n < 0)
        n = 0;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';

    /* A log file this process cannot open (another user's) loses the
     * message rather than put it on the program's stderr. */
    int fd = 2, opened = 0;
    if (pp_config.log_file[0]) {
        fd = open(pp_config.log_file,
                  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        opened = fd >= 0;
    } else if (own_fd_keep()) {
        /* The sampler's private fd table has no stderr: the program's, by
         * its /proc name, for this one message.  Non-blocking: opening a
         * pipe whose reader is gone would wait for a reader for ever. */
        fd = open("/proc/self/fd/2",
                  O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        opened = fd >= 0;
    }
    if (fd >= 0) {
        ssize_t w = write(fd, buf, len);
        (void)w;
        if (opened)
            close(fd);
    }
    errno = saved;
}

void pp_log(int level, const char *fmt, ...)
{
    if (level > pp_config.log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void pp_warn(const char *fmt, ...)
{
    if (pp_config.log_level < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void pp_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}
