/*
 * stragglers.c — which processes of the tree are still writing their
 * profile (stragglers.h).  A file's writer is named by the pid in the
 * file's name, and still writes it while one of its threads holds it open
 * (the sampler keeps it in a file table of its own: /proc/PID/task/TID/fd).
 * A process that has exec'd a program that is not Python, or has ended
 * and waits to be reaped, holds it no more; a pid reused by a process
 * older than the mark, or the file of an earlier run in the same
 * directory, is not taken for a writer of this run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pyprof/file_name.h"
#include "run/stragglers.h"

static unsigned long long mark_ticks;   /* process start times, in ticks */

/* Field 22 of /proc/PID/stat: the process's start, in clock ticks since
 * boot; 0 if it cannot be read. */
static unsigned long long start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strrchr(buf, ')');     /* the command may hold spaces */
    if (!p)
        return 0;
    unsigned long long v = 0;
    /* ") state ppid ..." : field 3 is the state; 22 is 19 fields on. */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &v) != 1)
        return 0;
    return v;
}

void stragglers_mark_start(void)
{
    mark_ticks = start_ticks(getpid());
}

/* Whether a thread of pid holds the file st open. */
static int holds_open(pid_t pid, const struct stat *file)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return 0;
    int found = 0;
    struct dirent *t;
    while (!found && (t = readdir(tasks)) != NULL) {
        if (t->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.16s/fd", (int)pid, t->d_name);
        DIR *fds = opendir(path);
        if (!fds)
            continue;
        struct dirent *f;
        while (!found && (f = readdir(fds)) != NULL) {
            struct stat st;
            if (f->d_name[0] != '.' && fstatat(dirfd(fds), f->d_name, &st, 0) == 0)
                found = st.st_dev == file->st_dev && st.st_ino == file->st_ino;
        }
        closedir(fds);
    }
    closedir(tasks);
    return found;
}

/* The pid in a profile file's name (pyprof/file_name.h), or 0. */
static pid_t pid_of(const char *name)
{
    struct pp_file_name n;
    return pp_file_name_parse(name, &n) && n.pid < (1L << 24) ? (pid_t)n.pid : 0;
}

size_t stragglers_find(const char *dir, pid_t *pids, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = pid_of(e->d_name);
        struct stat st;
        if (pid <= 0 || pid == getpid() ||
            fstatat(dirfd(d), e->d_name, &st, 0) != 0)
            continue;
        if (kill(pid, 0) != 0 && errno != EPERM)
            continue;
        if (start_ticks(pid) < mark_ticks || !holds_open(pid, &st))
            continue;
        if (n < cap)
            pids[n] = pid;
        n++;
    }
    closedir(d);
    return n;
}

void stragglers_command(pid_t pid, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0) {
        snprintf(buf, cap, "?");
        return;
    }
    buf[n] = 0;
    for (ssize_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] < ' ')
            buf[i] = ' ';         /* NULs between arguments, a -c's lines */
    while (n > 0 && buf[n - 1] == ' ')
        buf[--n] = 0;
}
