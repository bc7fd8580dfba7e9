/*
 * not_profiled.c — the record of a process that could not be profiled
 * (include/pyprof/unprofiled.h, pyprof(5)).  Written at the moment of
 * failure by open-write-close, so the program never has an extra fd; a
 * process that cannot write into the output directory (another user, a
 * directory it may not enter) sends the same bytes to pyprof-run, which
 * writes them there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "record/not_profiled.h"
#include "pyprof/unprofiled.h"
#include "base/identity.h"

static size_t put_raw(char *dst, size_t at, size_t cap, const char *s)
{
    for (; *s && at + 1 < cap; s++)
        dst[at++] = *s;
    return at;
}

/* Appends s with newlines and other control bytes as spaces: one record
 * line must stay one line. */
static size_t put_line_text(char *dst, size_t at, size_t cap, const char *s)
{
    for (; s && *s && at + 1 < cap; s++)
        dst[at++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
    return at;
}

/* The record: the magic line, extra (whole "key value" lines, or ""),
 * then the lines of every record, the reason last. */
static size_t format_record(char *rec, size_t cap, const char *extra, const char *reason)
{
    int n = snprintf(rec, cap, PP_UNPROF_MAGIC "%spid %d\nuser %u\nparent %s\ncommand ",
                     extra, (int)getpid(), (unsigned)getuid(), pp_state.inherited_parent);
    size_t at = n > 0 && (size_t)n < cap ? (size_t)n : 0;
    /* The command takes at most half, so the reason always fits. */
    size_t cmd_cap = at + (cap - at) / 2;
    for (int i = 0; pp_state.argv && pp_state.argv[i] && at + 2 < cmd_cap; i++) {
        if (i)
            rec[at++] = ' ';
        at = put_line_text(rec, at, cmd_cap, pp_state.argv[i]);
    }
    at = put_raw(rec, at, cap - 1, "\nreason ");
    at = put_line_text(rec, at, cap - 1, reason);
    rec[at++] = '\n';
    return at;
}

static int write_file(const char *rec, size_t len)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%d.%016llx%s", pp_out_dir(),
                 (int)getpid(), (unsigned long long)pp_new_uid(),
                 PP_UNPROF_SUFFIX) >= (int)sizeof path)
        return -1;
    /* The output directory of a process that failed before creating its
     * profile may not exist yet. */
    (void)mkdir(pp_out_dir(), 0700);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, rec, len);
    close(fd);
    if (w != (ssize_t)len) {
        unlink(path);
        return -1;
    }
    return 0;
}

static int send_to_run(const char *rec, size_t len)
{
    const char *name = pp_config.run_socket;
    size_t n = strlen(name);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strncmp(name, PP_RUN_SOCKET_PREFIX, strlen(PP_RUN_SOCKET_PREFIX)) ||
        n + 1 > sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path + 1, name, n);    /* abstract: no file anywhere */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    ssize_t w = sendto(fd, rec, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
    close(fd);
    return w == (ssize_t)len ? 0 : -1;
}

/* Writes the record where it can: a file in the output directory, else a
 * datagram to pyprof-run. */
static void deliver(const char *rec, size_t len)
{
    if (write_file(rec, len) != 0 && send_to_run(rec, len) != 0)
        pp_log(2, "the record was lost too");
}

void pp_stopped_writing(const char *reason, int err, uint64_t when_ns,
                        long long lost)
{
    int saved = errno;
    char extra[160], lost_line[32] = "", rec[PP_UNPROF_MAX];
    const char *name = strerrorname_np(err);
    if (lost >= 0)
        snprintf(lost_line, sizeof lost_line, "lost %lld\n", lost);
    snprintf(extra, sizeof extra, "image %016llx\nstopped %llu\nerrno %s\n%s",
             (unsigned long long)pp_state.uid, (unsigned long long)when_ns,
             name ? name : "?", lost_line);
    deliver(rec, format_record(rec, sizeof rec, extra, reason));
    errno = saved;
}

void pp_not_profiled(const char *fmt, ...)
{
    static pid_t recorded;      /* one record per image; a fork child is new */
    int saved = errno;
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    pp_warn("%s; this process is not profiled", reason);
    if (recorded != getpid()) {
        recorded = getpid();
        char rec[PP_UNPROF_MAX];
        deliver(rec, format_record(rec, sizeof rec, "", reason));
    }
    errno = saved;
}
