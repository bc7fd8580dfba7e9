/*
 * stragglers.c — which processes of the tree are still writing their
 * profile (stragglers.h).  A file's writer is named by the pid in the
 * file's name, and still writes it while one of its threads holds it open
 * (the sampler keeps it in a file table of its own: /proc/PID/task/TID/fd).
 * A process that has exec'd a program that is not Python, or has ended
 * and waits to be reaped, holds it no more; a pid reused by a process
 * older than the mark, or the file of an earlier run in the same
 * directory, is not taken for a writer of this run.
 *
 * A process can also be profiled and still have no file: a Python
 * process creates its file at its first tick, a fork child at its first
 * tick past its first milliseconds.  Its sampler's timer shows it
 * (pyprof/timer_tag.h): listed in /proc/PID/timers from the sampler's
 * start, with the output directory's hash in its value.  And a process
 * can be on its way to being profiled: a shell's child before it execs
 * Python, a Python process before its sampler starts.  Such a process is
 * young and names the output directory in its environment; it is waited
 * for until it has had YOUNG_MS to itself (time spent waiting for a CPU
 * does not count), by when its sampler has started if it is to be
 * profiled at all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pyprof/file_name.h"
#include "pyprof/schedstat.h"
#include "pyprof/timer_tag.h"
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

/* Up to cap bytes of /proc/PID/<what>; how many were read. */
static size_t read_proc(pid_t pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    ssize_t got;
    while (n < cap && (got = read(fd, buf + n, cap - n)) > 0)
        n += (size_t)got;
    close(fd);
    return n;
}

/* Whether pid's timers hold a sampler's, writing to the directory whose
 * timer value is want (pyprof/timer_tag.h). */
static int has_sampler_timer(pid_t pid, uint64_t want)
{
    /* Four lines a timer: this holds a few hundred, the sampler's the
     * first a Python process makes unless the program made some before
     * it was started. */
    static char buf[32768];
    buf[read_proc(pid, "timers", buf, sizeof buf - 1)] = 0;
    for (const char *l = buf; (l = strstr(l, "signal: ")) != NULL; l++) {
        int sig;
        unsigned long long value;
        if (sscanf(l, "signal: %d/%llx", &sig, &value) == 2 &&
            sig == PP_TIMER_SIG && value == want)
            return 1;
    }
    return 0;
}

static int listed(const pid_t *pids, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return 1;
    return 0;
}

/* Those of the tree that hold a file of dir open, up to FOUND_MAX. */
#define FOUND_MAX 256
static size_t holding_files(const char *dir, pid_t *pids)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        pid_t pid = pid_of(e->d_name);
        struct stat st;
        if (pid <= 0 || pid == getpid() || listed(pids, n < FOUND_MAX ? n : FOUND_MAX, pid) ||
            fstatat(dirfd(d), e->d_name, &st, 0) != 0)
            continue;
        if (kill(pid, 0) != 0 && errno != EPERM)
            continue;
        if (start_ticks(pid) < mark_ticks || !holds_open(pid, &st))
            continue;
        if (n < FOUND_MAX)
            pids[n] = pid;
        n++;
    }
    closedir(d);
    return n;
}

/* Whether pid's environment, as it was given at its exec, sets
 * PYPROF_OUT to dir (the library puts it back if a program clears it). */
static int names_dir(pid_t pid, const char *dir)
{
    static char env[65536];
    char want[PATH_MAX + 16];
    int w = snprintf(want, sizeof want, "PYPROF_OUT=%s", dir);
    if (w <= 0 || (size_t)w >= sizeof want)
        return 0;
    size_t n = read_proc(pid, "environ", env, sizeof env);
    for (size_t i = 0; i < n; i += strnlen(env + i, n - i) + 1)
        if (n - i > (size_t)w && !memcmp(env + i, want, (size_t)w + 1))
            return 1;
    return 0;
}

/* The longest time a thread of pid has spent runnable while other tasks
 * had the CPU (the second field of /proc/PID/task/TID/schedstat, where the
 * kernel keeps it), in milliseconds; 0 if none can be read. */
static unsigned long long waited_ms(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return 0;
    unsigned long long most = 0;
    struct dirent *t;
    while ((t = readdir(tasks)) != NULL) {
        if (t->d_name[0] < '1' || t->d_name[0] > '9')
            continue;
        char what[96], buf[128];
        uint64_t wait_ns;
        snprintf(what, sizeof what, "task/%.32s/schedstat", t->d_name);
        size_t len = read_proc(pid, what, buf, sizeof buf);
        if (pp_schedstat_wait(buf, len, &wait_ns) == 0 && wait_ns / 1000000ull > most)
            most = wait_ns / 1000000ull;
    }
    closedir(tasks);
    return most;
}

/* The time pid has had to itself since its start, in milliseconds: its
 * age less the longest wait for a CPU of any of its threads (waited_ms),
 * so that an interpreter starting on a loaded machine, whose first
 * thread or sampler thread waits its turn, is as young as on an idle
 * one.  Its age is from its start in clock ticks (start_ticks), at most a
 * tick more than the truth. */
static unsigned long long own_ms(pid_t pid, unsigned long long started, long hz)
{
    struct timespec t;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &t) != 0)
        return ULLONG_MAX;
    unsigned long long now = (unsigned long long)t.tv_sec * 1000ull +
                             (unsigned long long)t.tv_nsec / 1000000ull;
    unsigned long long start = started * 1000ull / (unsigned long long)hz;
    if (now <= start)
        return 0;
    unsigned long long age = now - start, waited = waited_ms(pid);
    return waited < age ? age - waited : 0;
}

/* How long a process that names the output directory in its environment
 * but has no sampler is waited for, in time of its own (own_ms): a Python
 * process starts its sampler within milliseconds of its exec
 * (pyprof-run(1), REPORT). */
#define YOUNG_MS 100

/* Adds to pids[0..n) the processes started since the mark that are not
 * there yet: a sampler writing to dir without a file, or young and on
 * their way (above); returns the new n. */
static size_t without_files(const char *dir, pid_t *pids, size_t n)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return n;
    uint64_t want = pp_timer_value(dir);
    long hz = sysconf(_SC_CLK_TCK);
    struct dirent *e;
    while (n < FOUND_MAX && (e = readdir(proc)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        pid_t pid = (pid_t)v;
        if (*end || v <= 0 || v >= (1L << 24) || pid == getpid() || listed(pids, n, pid))
            continue;
        unsigned long long started = start_ticks(pid);
        if (started < mark_ticks)
            continue;
        if (has_sampler_timer(pid, want) ||
            (own_ms(pid, started, hz) < YOUNG_MS && names_dir(pid, dir)))
            pids[n++] = pid;
    }
    closedir(proc);
    return n;
}

size_t stragglers_find(const char *dir, pid_t *pids, size_t cap, size_t *holding)
{
    static pid_t found[FOUND_MAX];
    size_t with_file = holding_files(dir, found);
    size_t n = with_file;
    if (with_file < FOUND_MAX)
        n = without_files(dir, found, with_file);
    if (holding)
        *holding = with_file;
    for (size_t i = 0; i < n && i < cap; i++)
        pids[i] = found[i];
    return n;
}

void stragglers_command(pid_t pid, char *buf, size_t cap)
{
    size_t n = read_proc(pid, "cmdline", buf, cap - 1);
    if (!n) {
        snprintf(buf, cap, "?");
        return;
    }
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] < ' ')
            buf[i] = ' ';         /* NULs between arguments, a -c's lines */
    while (n > 0 && buf[n - 1] == ' ')
        buf[--n] = 0;
}
