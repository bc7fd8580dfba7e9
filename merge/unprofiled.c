/*
 * unprofiled.c — the not-profiled records of pyprof(5): "key value" lines
 * after a magic line, at most PP_UNPROF_MAX bytes, read defensively.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pyprof/unprofiled.h"
#include "unprofiled.h"

/* Control bytes become '?': a record must not drive the terminal that
 * shows a report. */
static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    dst[n] = 0;
}

static long number_field(const char *s, size_t n)
{
    char tmp[24];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    errno = 0;
    long v = strtol(tmp, &end, 10);
    return errno || *end || v < 0 ? -1 : v;
}

/* An unsigned decimal field; 0 if it is not one. */
static unsigned long long u64_field(const char *s, size_t n)
{
    char tmp[24];
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (tmp[0] < '0' || tmp[0] > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tmp, &end, 10);
    return errno || *end ? 0 : v;
}

/* 16 lowercase hex digits, or "". */
static void image_field(char dst[17], const char *s, size_t n)
{
    dst[0] = 0;
    if (n != 16)
        return;
    for (size_t i = 0; i < 16; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return;
    memcpy(dst, s, 16);
    dst[16] = 0;
}

int unprofiled_parse(const char *text, size_t len, struct unprofiled *u,
                     char *err, size_t errlen)
{
    size_t ml = strlen(PP_UNPROF_MAGIC);
    memset(u, 0, sizeof *u);
    u->pid = u->user = -1;
    u->lost = -1;
    if (len > PP_UNPROF_MAX) {
        snprintf(err, errlen, "longer than %d bytes", PP_UNPROF_MAX);
        return -1;
    }
    if (len < ml || memcmp(text, PP_UNPROF_MAGIC, ml)) {
        snprintf(err, errlen, "not a pyprof not-profiled record");
        return -1;
    }
    const char *p = text + ml, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            snprintf(err, errlen, "cut short (no newline after the last line)");
            return -1;
        }
        if (memchr(p, 0, (size_t)(nl - p))) {
            snprintf(err, errlen, "a NUL byte inside a line");
            return -1;
        }
        const char *sp = memchr(p, ' ', (size_t)(nl - p));
        const char *val = sp ? sp + 1 : nl;
        size_t klen = (size_t)((sp ? sp : nl) - p), vlen = (size_t)(nl - val);
#define KEY(k) (klen == sizeof k - 1 && !memcmp(p, k, klen))
        if (KEY("pid"))
            u->pid = number_field(val, vlen);
        else if (KEY("user"))
            u->user = number_field(val, vlen);
        else if (KEY("parent"))
            copy_field(u->parent, sizeof u->parent, val, vlen);
        else if (KEY("command"))
            copy_field(u->command, sizeof u->command, val, vlen);
        else if (KEY("reason"))
            copy_field(u->reason, sizeof u->reason, val, vlen);
        else if (KEY("image"))
            image_field(u->image, val, vlen);
        else if (KEY("stopped"))
            u->stopped_ns = u64_field(val, vlen);
        else if (KEY("errno"))
            copy_field(u->err_name, sizeof u->err_name, val, vlen);
        else if (KEY("lost")) {
            long v = number_field(val, vlen);
            u->lost = v;
        }
#undef KEY
        p = nl + 1;
    }
    if (u->pid < 0 || !u->reason[0]) {
        snprintf(err, errlen, "no pid or no reason");
        return -1;
    }
    return 0;
}

int unprofiled_read(const char *path, struct unprofiled *u, char *err,
                    size_t errlen)
{
    /* Only a regular file: a FIFO or a device with a record's name could
     * hang the reader or act on being opened (a tape rewinds).  Checked
     * before the open, and on what was opened. */
    struct stat st;
    if (lstat(path, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        close(fd);
        return -1;
    }
    char buf[PP_UNPROF_MAX + 1];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            close(fd);
            return -1;
        }
        len += (size_t)r;
        if (r == 0 || len == sizeof buf)
            break;
    }
    close(fd);
    return unprofiled_parse(buf, len, u, err, errlen);
}

int unprofiled_is_record_name(const char *name)
{
    size_t n = strlen(name), s = strlen(PP_UNPROF_SUFFIX);
    return n > s && !strcmp(name + n - s, PP_UNPROF_SUFFIX);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int unprofiled_scan(const char *dir, const char *who, struct unprofiled **out,
                    size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    int r = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < UNPROF_MAX_RECORDS) {
        if (!unprofiled_is_record_name(e->d_name))
            continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 16;
            char **t = realloc(names, cap * sizeof *names);
            if (!t) {
                r = -1;
                break;
            }
            names = t;
        }
        if (!(names[nn] = strdup(e->d_name))) {
            r = -1;
            break;
        }
        nn++;
    }
    closedir(d);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_str);
    if (r == 0 && nn && !(*out = calloc(nn, sizeof **out)))
        r = -1;
    for (size_t i = 0; i < nn; i++) {
        char path[4096], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (r >= 0 && unprofiled_read(path, &(*out)[*n], err, sizeof err) == 0)
            (*n)++;
        else if (r >= 0) {
            fprintf(stderr, "%s: %s: %s\n", who, path, err);
            r++;
        }
        free(names[i]);
    }
    free(names);
    return r;
}

void unprofiled_describe(const struct unprofiled *u, char *buf, size_t cap)
{
    char user[32] = "";
    if (u->user >= 0)
        snprintf(user, sizeof user, " as uid %ld", u->user);
    if (!u->stopped_ns) {
        snprintf(buf, cap, "pid %ld%s (%.200s): %s", u->pid, user, u->command, u->reason);
        return;
    }
    char when[48] = "?", lost[64] = "ticks lost after it: not known (it did not end)";
    time_t t = (time_t)(u->stopped_ns / 1000000000ULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        snprintf(when, sizeof when, "%04d-%02d-%02d %02d:%02d:%02d.%03llu UTC",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                 tm.tm_sec, (u->stopped_ns / 1000000ULL) % 1000);
    if (u->lost >= 0)
        snprintf(lost, sizeof lost, "%lld tick%s lost after it", u->lost,
                 u->lost == 1 ? "" : "s");
    snprintf(buf, cap, "pid %ld%s (%.200s): %s (%s) at %s; %s", u->pid, user,
             u->command, u->reason, u->err_name[0] ? u->err_name : "?", when, lost);
}

void unprofiled_dedupe(struct unprofiled *u, size_t *n)
{
    if (!*n)
        return;
    unsigned char *drop = calloc(*n, 1);
    if (!drop)
        return;       /* all kept: repeated lines, nothing lost */
    for (size_t i = 0; i < *n; i++)
        for (size_t j = 0; u[i].stopped_ns && u[i].image[0] && j < *n; j++)
            if (j != i && u[j].stopped_ns && !strcmp(u[j].image, u[i].image) &&
                (u[j].lost > u[i].lost || (u[j].lost == u[i].lost && j > i))) {
                drop[i] = 1;
                break;
            }
    size_t out = 0;
    for (size_t i = 0; i < *n; i++)
        if (!drop[i])
            u[out++] = u[i];
    free(drop);
    *n = out;
}
