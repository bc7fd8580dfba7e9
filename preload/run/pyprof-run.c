/*
 * pyprof-run — runs a command with every Python process of its tree
 * profiled: sets LD_PRELOAD and PYPROF_*, forwards signals, exits with the
 * command's status, and says on stderr what was recorded and what could
 * not be profiled.
 *
 * The command gets exactly the signal dispositions and mask pyprof-run was
 * given (as nohup, timeout and env leave them): a signal ignored at start
 * stays ignored in the command, and is still forwarded to it from here
 * (pyprof-run(1), SIGNALS).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pyprof/control.h"
#include "pyprof/settings.h"
#include "pyprof/unprofiled.h"
#include "run/control_cmd.h"
#include "run/held_records.h"
#include "run/prune.h"
#include "window.h"
#include "run/stragglers.h"
#include "unprofiled.h"

static volatile pid_t child;   /* 0 once reaped */

/* Bounded disk (prune.h): the bound, its account, the control page the
 * segment size goes through; bounded 0: none asked. */
static int bounded;
static struct prune_bound bound;
static struct prune_stats pruned;
static struct pp_control *page;
static struct timespec last_prune;
/* Told of each file made in DIR: a new segment is looked at at once, not
 * at the next look of the clock's (a segment that began just after a
 * look would have PRUNE_EVERY_MS to grow unaccounted).  -1: none. */
static int dir_watch = -1;

#define PRUNE_EVERY_MS 200

/* A look at DIR, if the last was PRUNE_EVERY_MS ago or more, or a file
 * was made in it since. */
static void prune_due(const char *dir)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - last_prune.tv_sec) * 1000 +
              (now.tv_nsec - last_prune.tv_nsec) / 1000000;
    char events[4096];
    int made = 0;
    while (dir_watch >= 0 && read(dir_watch, events, sizeof events) > 0)
        made = 1;
    if (!bounded || (last_prune.tv_sec && ms < PRUNE_EVERY_MS && !made))
        return;
    last_prune = now;
    prune_dir(dir, &bound, page, &pruned);
}

static void watch_dir(const char *dir)
{
    dir_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (dir_watch >= 0 && inotify_add_watch(dir_watch, dir, IN_CREATE | IN_MOVED_TO) < 0) {
        close(dir_watch);
        dir_watch = -1;
    }
}

static void usage(FILE *o)
{
    fputs("usage: pyprof-run [options] -- command [args...]\n"
          "       pyprof-run --control DIR start [--for DURATION] | stop\n"
          "  -o, --output DIR   where the profiles go (default ./pyprof.out)\n"
          "  -r, --rate HZ      samples per second per thread\n"
          "      --no-follow    profile the command only, not its descendants\n"
          "      --only GLOB    profile only processes whose command line matches\n"
          "  -q, --quiet        no summary\n"
          "      --paused       start every process with its sampler asleep,\n"
          "                     until pyprof-run --control DIR start\n"
          "      --control DIR  start or stop sampling in a tree started with\n"
          "                     --paused that writes into DIR\n"
          "      --keep DURATION   a process's profile goes into segments; those\n"
          "                     that ended longer ago than DURATION are deleted\n"
          "      --max-size SIZE   the same, deleting the oldest segments to keep\n"
          "                     DIR's profiles under SIZE (500M, 2G)\n"
          "      --top          a live view of the tree in the terminal while the\n"
          "                     command runs (its output goes to DIR/command.out;\n"
          "                     q quits the view, the command goes on)\n"
          "      --report FILE  merge into FILE when the command ends, in the\n"
          "                     format its extension says (.html .txt .json .pb.gz\n"
          "                     .pstats .speedscope.json .gecko.json .collapsed)\n"
          "      --report-format F  the report's format whatever the extension\n"
          "                     (as pyprof-merge --format; --format is the same)\n"
          "  -h, --help         this text\n"
          "  -V, --version      version\n", o);
}

/* Forwards signals someone sent to us; a terminal's SIGINT/SIGQUIT already
 * reached the child, which is in our process group. */
static void forward(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (child > 0 && info->si_code <= 0)
        kill(child, sig);
}

/* Only wakes ppoll() when the command ends. */
static void on_child(int sig)
{
    (void)sig;
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
                                 SIGWINCH };
#define NFORWARDED (sizeof forwarded / sizeof *forwarded)

/* What pyprof-run was given, for the command to get back. */
static struct {
    sigset_t mask;
    struct sigaction act[NFORWARDED], chld;
} given;
static sigset_t waiting_mask;   /* ppoll's: SIGCHLD and the forwarded open */

/* Catches the forwarded signals and SIGCHLD (whatever it was given: an
 * ignored SIGCHLD would reap the command before we could read its
 * status).  SIGCHLD stays blocked except in ppoll(), so that its arrival
 * cannot fall between waitpid and ppoll.  A signal given ignored is
 * caught too and forwarded: the command starts with it ignored, and what
 * it does with the signal is the command's (a server such as uWSGI
 * installs its own SIGINT handler over a background job's ignored one). */
static void take_signals(void)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &given.mask);
    waiting_mask = given.mask;
    sigdelset(&waiting_mask, SIGCHLD);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFORWARDED; i++) {
        sigaction(forwarded[i], NULL, &given.act[i]);
        sigaction(forwarded[i], &sa, NULL);
        /* A signal blocked in the command is forwarded all the same: it
         * then waits there, pending, as if sent to the command itself. */
        sigdelset(&waiting_mask, forwarded[i]);
    }
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &given.chld);
}

/* In a child of ours, before exec: what pyprof-run was given. */
static void give_signals_back(void)
{
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaction(forwarded[i], &given.act[i], NULL);
    sigaction(SIGCHLD, &given.chld, NULL);
    sigprocmask(SIG_SETMASK, &given.mask, NULL);
}

/* The abstract unix socket on which processes that cannot write into the
 * output directory send their not-profiled record (pyprof(5)).  Abstract:
 * no file anywhere, gone with us; the name is random so that it cannot be
 * taken first. */
static int listen_records(char *name, size_t cap)
{
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
        r ^= (unsigned long long)(uintptr_t)&r ^ (unsigned long long)getpid() << 32;
    snprintf(name, cap, PP_RUN_SOCKET_PREFIX "%d.%016llx", (int)getpid(), r);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    size_t n = strlen(name);
    if (n + 1 > sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path + 1, name, n);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    /* Every datagram then comes with its sender's pid and uid, as the
     * kernel knows them. */
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&a,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The parent of pid from /proc/PID/stat, whose field 2, "(comm)", may
 * hold spaces and parentheses; -1 if pid is gone. */
static pid_t parent_of(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return -1;
    line[n] = 0;
    char *p = strrchr(line, ')');
    int ppid;
    return p && sscanf(p + 1, " %*c %d", &ppid) == 1 ? ppid : -1;
}

/* Whether a datagram's sender may add a record (pyprof-run(1), SUMMARY):
 * a process of our uid or root could write into the directory itself;
 * any other must still be in our tree when its datagram is read. */
static int sender_trusted(const struct ucred *c)
{
    if (c->uid == getuid() || c->uid == 0)
        return 1;
    pid_t p = c->pid;
    for (int depth = 0; p > 1 && depth < 4096; depth++) {
        p = parent_of(p);
        if (p == getpid())
            return 1;
    }
    return 0;
}

/* Writes every record waiting on the socket into dir, where pyprof-merge
 * finds it; datagrams that are not records, or whose sender the kernel's
 * credentials do not vouch for, are dropped. */
static void receive_records(int sock, const char *dir)
{
    static unsigned seq;
    char buf[PP_UNPROF_MAX + 1];
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(struct ucred))];
    } ctl;
    ssize_t n;
    for (;;) {
        struct iovec iov = { buf, sizeof buf };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
                            .msg_controllen = sizeof ctl };
        if (sock < 0 || (n = recvmsg(sock, &m, MSG_DONTWAIT)) < 0)
            break;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        struct ucred cred;
        if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
            c->cmsg_len != CMSG_LEN(sizeof cred))
            continue;
        memcpy(&cred, CMSG_DATA(c), sizeof cred);
        struct unprofiled u;
        char err[128], path[PATH_MAX];
        if (!sender_trusted(&cred) ||
            unprofiled_parse(buf, (size_t)n, &u, err, sizeof err) != 0 ||
            seq >= UNPROF_MAX_RECORDS)
            continue;
        /* A directory reused by an earlier run of the same pid may hold
         * the name already: the next number then. */
        int fd = -1;
        for (unsigned tries = 0; fd < 0 && tries < 1000; tries++) {
            snprintf(path, sizeof path, "%s/pyprof-run.%d.%u%s", dir, (int)getpid(),
                     seq++, PP_UNPROF_SUFFIX);
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0 && errno != EEXIST)
                break;
        }
        /* Not writable there (read-only, full): kept for the summary and
         * the merges all the same. */
        if (fd < 0) {
            held_records_keep(buf, (size_t)n);
            continue;
        }
        if (write(fd, buf, (size_t)n) != n) {
            unlink(path);
            held_records_keep(buf, (size_t)n);
        }
        close(fd);
    }
}

/* Waits for the command, taking the records sent meanwhile (the socket
 * holds only a few datagrams). */
static int wait_command(int sock, const char *dir, int *st)
{
    struct pollfd p[2] = { { .fd = sock, .events = POLLIN },
                           { .fd = dir_watch, .events = POLLIN } };
    /* A reaped pid may be anyone's next: forward() must not see it, so
     * the forwarded signals wait while it is reaped and forgotten. */
    sigset_t fw, before;
    sigemptyset(&fw);
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaddset(&fw, forwarded[i]);
    for (;;) {
        sigprocmask(SIG_BLOCK, &fw, &before);
        pid_t r = waitpid(child, st, WNOHANG);
        if (r == child)
            child = 0;
        sigprocmask(SIG_SETMASK, &before, NULL);
        if (r > 0)
            break;
        if (r < 0 && errno != EINTR)
            return -1;
        struct timespec every = { 0, PRUNE_EVERY_MS * 1000000L };
        if (ppoll(p, 2, bounded ? &every : NULL, &waiting_mask) > 0 && sock >= 0 &&
            (p[0].revents & POLLIN))
            receive_records(sock, dir);
        prune_due(dir);
    }
    receive_records(sock, dir);
    return 0;
}

/* How long the report and the summary wait for processes of the tree
 * still writing their profile once the command has ended (pyprof-run(1),
 * REPORT). */
#define LINGER_MS 3000
#define LINGER_STEP_MS 20

/* Waits, at most LINGER_MS, for the processes of the tree that still
 * write their profile (stragglers.h), taking the records sent meanwhile;
 * then names those still writing. */
static void wait_stragglers(int sock, const char *dir, int quiet)
{
    pid_t pids[8];
    size_t n = 0, holding = 0;
    struct pollfd p[2] = { { .fd = sock, .events = POLLIN },
                           { .fd = dir_watch, .events = POLLIN } };
    for (int waited = 0; ; waited += LINGER_STEP_MS) {
        n = stragglers_find(dir, pids, sizeof pids / sizeof *pids, &holding);
        if (!n || waited >= LINGER_MS)
            break;
        struct timespec step = { 0, LINGER_STEP_MS * 1000000L };
        if (ppoll(p, 2, &step, &waiting_mask) > 0 && sock >= 0 && (p[0].revents & POLLIN))
            receive_records(sock, dir);
        prune_due(dir);
    }
    if (quiet)
        return;
    for (size_t i = 0; i < n && i < sizeof pids / sizeof *pids; i++) {
        char cmd[160];
        stragglers_command(pids[i], cmd, sizeof cmd);
        if (i < holding)
            fprintf(stderr, "pyprof: process %d (%s) was still running %d s after the "
                            "command ended; its profile so far is in the report, "
                            "marked incomplete\n", (int)pids[i], cmd, LINGER_MS / 1000);
        else
            fprintf(stderr, "pyprof: process %d (%s) was still running %d s after the "
                            "command ended and had not written its profile yet; it "
                            "is not in the report\n", (int)pids[i], cmd, LINGER_MS / 1000);
    }
    if (n > sizeof pids / sizeof *pids)
        fprintf(stderr, "pyprof: ... and %zu more\n", n - sizeof pids / sizeof *pids);
}

static int file_exists(const char *p)
{
    return access(p, R_OK) == 0;
}

/* Next to ourselves in a build tree, else the installed copy. */
static int locate(const char *name, const char *installed, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            const char *tries[] = { "%s/.libs/%s", "%s/%s", "%s/../lib/%s" };
            char cand[PATH_MAX + 64];
            for (size_t i = 0; i < 3; i++) {
                snprintf(cand, sizeof cand, tries[i], exe, name);
                if (file_exists(cand))
                    return realpath(cand, out) ? 0 : -1;
            }
        }
    }
    snprintf(out, cap, "%s/%s", installed, name);
    return file_exists(out) ? 0 : -1;
}

static int mkdirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *s = tmp + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The report's format by FILE's extension (pyprof-run(1), REPORT), the
 * longer suffixes first; NULL when the extension says none. */
static const struct { const char *ext, *fmt; } report_formats[] = {
    { ".speedscope.json", "speedscope" }, { ".gecko.json", "gecko" },
    { ".pb.gz", "pprof" }, { ".pprof", "pprof" }, { ".pstats", "pstats" },
    { ".prof", "pstats" }, { ".html", "html" }, { ".htm", "html" },
    { ".json", "json" }, { ".txt", "text" }, { ".collapsed", "collapsed" },
    { ".folded", "collapsed" },
};

static const char *format_of(const char *file)
{
    size_t n = strlen(file);
    for (size_t i = 0; i < sizeof report_formats / sizeof *report_formats; i++) {
        size_t e = strlen(report_formats[i].ext);
        if (n > e && !strcmp(file + n - e, report_formats[i].ext))
            return report_formats[i].fmt;
    }
    return NULL;
}

static const char *const merge_formats[] = {
    "text", "json", "collapsed", "html", "pprof", "pstats", "lines", "speedscope",
    "gecko",
};

static int known_format(const char *f)
{
    for (size_t i = 0; i < sizeof merge_formats / sizeof *merge_formats; i++)
        if (!strcmp(f, merge_formats[i]))
            return 1;
    return 0;
}

/* Runs argv, waits, returns the wait status (or -1); with out_file, its
 * stdout goes there and its stderr nowhere. */
static int run(char *const argv[], const char *out_file)
{
    pid_t pid = fork();
    if (pid == 0) {
        give_signals_back();
        /* The summary's merge says on stderr what the summary itself
         * says (no profile, processes not profiled). */
        if (out_file && (!freopen(out_file, "w", stdout) ||
                         !freopen("/dev/null", "w", stderr)))
            _exit(127);
        unsetenv("LD_PRELOAD");
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return st;
}

static unsigned long json_number(const char *doc, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(doc, pat);
    return p ? strtoul(p + strlen(pat), NULL, 10) : 0;
}

static void summary(const char *merge, const char *dir, const char *held)
{
    char tmp[] = "/tmp/pyprof-run.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    close(fd);
    char *argv[] = { (char *)merge, "--format", "json", (char *)dir, (char *)held, NULL };
    int st = run(argv, tmp);
    char buf[4096] = "";
    FILE *f = fopen(tmp, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    unlink(tmp);
    if (st < 0 || !strstr(buf, "\"totals\"")) {
        fprintf(stderr, "pyprof: no profile was recorded in %s\n", dir);
        return;
    }
    fprintf(stderr, "pyprof: %lu processes (%lu Python), %lu samples, %lu dropped; "
                    "files in %s; view: pyprof-merge %s\n",
            json_number(buf, "processes"), json_number(buf, "python_processes"),
            json_number(buf, "samples"), json_number(buf, "dropped"), dir, dir);
}

static void human(uint64_t b, char *buf, size_t cap)
{
    if (b >= 10ull << 30)
        snprintf(buf, cap, "%.1f GiB", (double)b / (1 << 30));
    else if (b >= 10ull << 20)
        snprintf(buf, cap, "%.1f MiB", (double)b / (1 << 20));
    else
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024);
}

/* What the bound kept and deleted (pyprof-run(1), BOUNDED DISK). */
static void say_bound(const char *dir)
{
    char kept[32], gone[32], peak[32], max[32];
    human(pruned.last_bytes, kept, sizeof kept);
    human(pruned.deleted_bytes, gone, sizeof gone);
    human(pruned.peak_bytes, peak, sizeof peak);
    fprintf(stderr, "pyprof: bounded disk: %llu files (%s) kept in %s, %llu older "
                    "segments (%s) deleted; at most %s at one look\n",
            (unsigned long long)pruned.last_files, kept, dir,
            (unsigned long long)pruned.deleted, gone, peak);
    if (bound.max_bytes && pruned.over_looks) {
        human(bound.max_bytes, max, sizeof max);
        fprintf(stderr, "pyprof: --max-size %s could not be held at %llu looks: the "
                        "segments being written took the room (too many processes "
                        "at once for the size)\n", max,
                (unsigned long long)pruned.over_looks);
    }
}

/* The PYPROF_* settings of the environment that every process of the tree
 * reads and falls back from, said once for the tree: the processes stay
 * quiet about them under pyprof-run (pyprof(7), ENVIRONMENT).  Those this
 * run set itself from its options are not the user's. */
static void say_bad_settings(int set_hz, int set_follow, int set_segments)
{
    static const struct pp_setting settings[] = PP_SETTINGS;
    for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
        const struct pp_setting *t = &settings[i];
        const char *v = getenv(t->name);
        unsigned got, def = t->def;
        if (!v || (set_hz && !strcmp(t->name, "PYPROF_HZ")) ||
            (set_follow && !strcmp(t->name, "PYPROF_FOLLOW")) ||
            (set_segments && !strncmp(t->name, "PYPROF_SEGMENT_", 15)) ||
            pp_parse_uint(v, t->lo, t->hi, &got) == 0)
            continue;
        if (!strcmp(t->name, "PYPROF_LOG") && getenv("PYPROF_LOG_FILE"))
            def = 1;
        fprintf(stderr, "pyprof: %s=%s is not a number in [%u, %u]; every process "
                        "used %u\n", t->name, v, t->lo, t->hi, def);
    }
}

/* The records of one kind (stopped: processes that stopped writing their
 * profile; else those not profiled at all): how many, and the first few,
 * as pyprof-merge's text report lists them all. */
static void say_records(const struct unprofiled *u, size_t n, int stopped,
                        const char *dir)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (u[i].stopped_ns != 0) == stopped;
    if (!k)
        return;
    fprintf(stderr, "pyprof: %zu process%s %s:\n", k, k == 1 ? "" : "es",
            stopped ? "stopped writing their profile" : "not profiled");
    for (size_t i = 0, said = 0; i < n && said < 10; i++) {
        char what[1600];
        if ((u[i].stopped_ns != 0) != stopped)
            continue;
        unprofiled_describe(&u[i], what, sizeof what);
        fprintf(stderr, "pyprof:   %s\n", what);
        said++;
    }
    if (k > 10)
        fprintf(stderr, "pyprof:   ... and %zu more (pyprof-merge %s lists them all)\n",
                k - 10, dir);
}

/* How many processes of the tree could not be profiled or stopped writing,
 * and why: the records in the output directory and those held here
 * because they could not be written there. */
static void say_not_profiled(const char *dir)
{
    struct unprofiled *u;
    size_t n;
    if (unprofiled_scan(dir, "pyprof-run", &u, &n) < 0) {
        u = NULL;
        n = 0;
    }
    held_records_append(&u, &n);
    unprofiled_dedupe(u, &n);
    say_records(u, n, 1, dir);
    say_records(u, n, 0, dir);
    free(u);
}

/* --top: the command's standard output and error go to DIR/command.out
 * and its input is /dev/null, the terminal being the view's.  In the
 * command's child, before exec. */
static int command_output(const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/command.out", dir);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
        fprintf(stderr, "pyprof-run: %s: %s\n", path, strerror(errno));
        return -1;
    }
    close(out);
    close(in);
    return 0;
}

/* --top: pyprof-merge --live DIR on the terminal while the command runs
 * (pyprof-run(1), --top); said first, so that the words are on the
 * terminal again when the view gives it back. */
static pid_t start_view(const char *merge, const char *dir)
{
    fprintf(stderr, "pyprof-run: a live view of %s; the command's output goes to "
                    "%s/command.out; q quits the view, the command goes on\n", dir, dir);
    pid_t pid = fork();
    if (pid == 0) {
        give_signals_back();
        unsetenv("LD_PRELOAD");
        execl(merge, merge, "--live", dir, (char *)NULL);
        _exit(127);
    }
    return pid > 0 ? pid : 0;
}

/* The command has ended: the view ends too (if it is still on), giving
 * the terminal back before the summary is written to it. */
static void end_view(pid_t view)
{
    if (view <= 0)
        return;
    kill(view, SIGTERM);
    while (waitpid(view, NULL, 0) < 0 && errno == EINTR)
        ;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        { "output", required_argument, 0, 'o' }, { "rate", required_argument, 0, 'r' },
        { "no-follow", no_argument, 0, 'N' }, { "only", required_argument, 0, 'O' },
        { "quiet", no_argument, 0, 'q' }, { "report", required_argument, 0, 'R' },
        { "format", required_argument, 0, 'F' },
        { "report-format", required_argument, 0, 'F' }, { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' }, { "top", no_argument, 0, 'T' },
        { "paused", no_argument, 0, 'P' }, { "control", required_argument, 0, 'C' },
        { "keep", required_argument, 0, 'K' }, { "max-size", required_argument, 0, 'M' },
        { 0, 0, 0, 0 },
    };
    const char *out = "pyprof.out", *rate = NULL, *only = NULL, *report = NULL,
               *format = NULL;
    int follow = 1, quiet = 0, top = 0, paused = 0, c;
    const char *control = NULL;
    while ((c = getopt_long(argc, argv, "+o:r:qhV", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'r': {
            /* The library would take a bad rate silently (it keeps the
             * program's stderr clean), so it is refused here. */
            char *end;
            long hz = strtol(optarg, &end, 10);
            if (*end || end == optarg || hz < 1 || hz > 200000) {
                fprintf(stderr, "pyprof-run: --rate %s: expected 1 to 200000\n", optarg);
                return 2;
            }
            rate = optarg;
            break;
        }
        case 'N': follow = 0; break;
        case 'O': only = optarg; break;
        case 'q': quiet = 1; break;
        case 'T': top = 1; break;
        case 'P': paused = 1; break;
        case 'C': control = optarg; break;
        case 'K': case 'M': {
            char why[256] = "expected a duration above 0";
            int bad = c == 'K'
                ? window_duration(optarg, &bound.keep_ns, why, sizeof why) != 0 || !bound.keep_ns
                : prune_parse_size(optarg, &bound.max_bytes, why, sizeof why) != 0;
            if (bad) {
                fprintf(stderr, "pyprof-run: %s %s: %s\n", c == 'K' ? "--keep" : "--max-size",
                        optarg, why);
                return 2;
            }
            bounded = 1;
            break;
        }
        case 'R': report = optarg; break;
        case 'F': format = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': puts("pyprof-run " PACKAGE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (control)
        return control_command(control, argv + optind, argc - optind);
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    /* Said before the command runs, not after an hour of it. */
    if (format && !known_format(format)) {
        fprintf(stderr, "pyprof-run: --report-format %s: expected text, json, "
                        "collapsed, html, pprof, pstats, lines, speedscope or gecko\n",
                format);
        return 2;
    }
    if (report && !format && !(format = format_of(report))) {
        fprintf(stderr, "pyprof-run: --report %s: its extension names no format "
                        "(.html, .txt, .json, .pb.gz, .pstats, .speedscope.json, "
                        ".gecko.json, .collapsed, .folded); add one, or give "
                        "--report-format\n", report);
        return 2;
    }
    char lib[PATH_MAX], merge[PATH_MAX], dir[PATH_MAX];
    if (locate("libpyprof.so", PYPROF_LIBDIR, lib, sizeof lib) != 0) {
        fprintf(stderr, "pyprof-run: cannot find libpyprof.so (looked next to this "
                        "program and in %s)\n", PYPROF_LIBDIR);
        return 2;
    }
    int have_merge = locate("pyprof-merge", PYPROF_BINDIR, merge, sizeof merge) == 0;
    if (top && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !have_merge)) {
        fprintf(stderr, "pyprof-run: --top %s\n", have_merge
                ? "draws on a terminal: standard input and output must be one"
                : "needs pyprof-merge, which was not found");
        return 2;
    }
    if (out[0] == '/') {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return 2;
        if (snprintf(dir, sizeof dir, "%s/%s", cwd, out) >= (int)sizeof dir) {
            fprintf(stderr, "pyprof-run: output path too long\n");
            return 2;
        }
    }
    if (mkdirs(dir) != 0) {
        fprintf(stderr, "pyprof-run: cannot create %s: %s\n", dir, strerror(errno));
        return 2;
    }

    char control_path[PATH_MAX + 16] = "";
    if ((paused || bounded) &&
        control_create(dir, paused, control_path, sizeof control_path,
                       bounded ? &page : NULL) != 0)
        return 2;

    if (bounded)
        watch_dir(dir);
    char sock_name[100];
    int sock = listen_records(sock_name, sizeof sock_name);
    take_signals();
    /* Everything blocked across fork: a signal that reaches the child
     * before exec (a terminal's SIGINT) then waits for the dispositions
     * given back to it, and acts as it would on the command. */
    sigset_t all, ours;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &ours);
    stragglers_mark_start();
    child = fork();
    if (child < 0) {
        sigprocmask(SIG_SETMASK, &ours, NULL);
        perror("pyprof-run: fork");
        return 2;
    }
    if (child == 0) {
        const char *old = getenv("LD_PRELOAD");
        char preload[2 * PATH_MAX + 2];
        snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "",
                 old ? old : "");
        setenv("LD_PRELOAD", preload, 1);
        setenv("PYPROF_OUT", dir, 1);
        if (rate)
            setenv("PYPROF_HZ", rate, 1);
        if (!follow)
            setenv("PYPROF_FOLLOW", "0", 1);
        if (only)
            setenv("PYPROF_ONLY", only, 1);
        if (paused || bounded)
            setenv(PP_ENV_CONTROL, control_path, 1);
        else
            unsetenv(PP_ENV_CONTROL);
        if (bounded) {
            char v[32];
            snprintf(v, sizeof v, "%u", prune_segment_seconds(&bound));
            setenv("PYPROF_SEGMENT_S", v, 1);
            snprintf(v, sizeof v, "%u", prune_segment_kb(&bound));
            setenv("PYPROF_SEGMENT_KB", v, 1);
        }
        unsetenv("PYPROF_PARENT");
        if (sock >= 0)
            setenv(PP_ENV_RUN_SOCKET, sock_name, 1);
        else
            unsetenv(PP_ENV_RUN_SOCKET);
        give_signals_back();
        if (top && command_output(dir) != 0)
            _exit(127);
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "pyprof-run: %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    sigprocmask(SIG_SETMASK, &ours, NULL);
    pid_t view = top ? start_view(merge, dir) : 0;
    int st;
    if (wait_command(sock, dir, &st) != 0) {
        perror("pyprof-run: waitpid");
        return 2;
    }
    end_view(view);
    if (report || !quiet)
        wait_stragglers(sock, dir, quiet);
    /* the last look, with the tree ended: what is left is what the
     * bound keeps */
    if (bounded) {
        last_prune.tv_sec = 0;
        prune_due(dir);
    }
    if (sock >= 0)
        close(sock);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);

    int report_made = report != NULL;
    if (report) {
        if (!have_merge) {
            report_made = 0;
            fprintf(stderr, "pyprof-run: pyprof-merge not found; no report\n");
        } else {
            char *margv[] = { merge, "--format", (char *)format,
                              "-o", (char *)report, dir, (char *)held_records_spill(), NULL };
            int ms = run(margv, NULL);
            if (ms < 0 || !WIFEXITED(ms) || WEXITSTATUS(ms) > 1) {
                fprintf(stderr, "pyprof-run: merging into %s failed\n", report);
                report_made = 0;
            }
        }
    }
    if (!quiet && have_merge)
        summary(merge, dir, held_records_spill());
    if (!quiet && bounded)
        say_bound(dir);
    if (!quiet)
        say_bad_settings(rate != NULL, !follow, bounded);
    if (!quiet)
        say_not_profiled(dir);
    if (!quiet && report && report_made)
        fprintf(stderr, "pyprof: report (%s) in %s\n", format, report);
    held_records_cleanup();
    return code;
}
