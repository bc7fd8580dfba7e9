/*
 * harness.c — see harness.h.
 */
#include "harness.h"
#include "pyprof/c_call.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/alloc.h>

extern char **environ;

/* ------------------------------------------------------------ misc */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p, "out of memory (%zu bytes)", n);
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    cr_assert_not_null(p, "out of memory (%zu bytes)", n);
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static char *xasprintf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0, "out of memory");
    return s;
}

static const char *need_env(const char *name)
{
    const char *v = getenv(name);
    cr_assert(v && *v, "%s is not set: run the integration tests through "
              "`make check` (Makefile.am, AM_TESTS_ENVIRONMENT)", name);
    return v;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------ interpreters */

/* Runs `py -c ...` to learn its version; 0 on success. */
static int probe(const char *path, struct pp_python *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        unsetenv("LD_PRELOAD");
        execl(path, path, "-S", "-c",
              "import platform; print(platform.python_version())",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64] = "";
    size_t len = 0;
    ssize_t k;
    while (len < sizeof buf - 1 &&
           (k = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = 0;
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    int major, minor;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
        sscanf(buf, "%d.%d", &major, &minor) != 2 || major != 3)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->version, sizeof out->version, "%s", buf);
    out->minor = minor;
    snprintf(out->label, sizeof out->label, "%s %s", buf, path);
    return 0;
}

static void free_pythons(struct criterion_test_params *p)
{
    cr_free(p->params);
}

struct criterion_test_params pp_pythons(void)
{
    static int said;            /* SKIP lines once per runner process */
    enum { MAX = 32, FIRST_MINOR = 10, LAST_TESTED_MINOR = 13 };
    struct pp_python *list = cr_calloc(MAX, sizeof *list);
    size_t n = 0;
    int seen[64] = { 0 };

    const char *home = getenv("HOME");
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s/.pyenv/versions/3.*",
             home && *home ? home : "/root");
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && n < MAX - 1; i++) {
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            int minor;
            char rest[64];
            /* 3.12.1 only: not 3.13.0t, 3.14-dev, 3.12.1-debug copies */
            if (sscanf(base, "3.%d.%63s", &minor, rest) != 2 ||
                minor < FIRST_MINOR || strspn(rest, "0123456789") != strlen(rest))
                continue;
            char path[300];
            snprintf(path, sizeof path, "%s/bin/python", g.gl_pathv[i]);
            if (access(path, X_OK) != 0 || probe(path, &list[n]) != 0) {
                if (!said)
                    fprintf(stderr, "SKIP: %s not found\n", path);
                continue;
            }
            if (minor < 64)
                seen[minor] = 1;
            n++;
        }
        globfree(&g);
    }
    for (int m = FIRST_MINOR; m <= LAST_TESTED_MINOR; m++)
        if (!seen[m] && !said)
            fprintf(stderr, "SKIP: %s/.pyenv/versions/3.%d.*/bin/python "
                    "not found\n", home && *home ? home : "/root", m);

    const char *debian = "/usr/bin/python3.11";
    if (access(debian, X_OK) == 0 && probe(debian, &list[n]) == 0) {
        snprintf(list[n].label, sizeof list[n].label, "%s (static) %s",
                 list[n].version, debian);
        n++;
    } else if (!said) {
        fprintf(stderr, "SKIP: %s not found\n", debian);
    }
    /* 3.14 and 3.15: Debian unstable's builds, installed by check.sh
     * into a cache outside the checkout (README, "CPython versions"). */
    const char *cache = getenv("PYPROF_PYTHONS_CACHE");
    if (!cache || !*cache)
        cache = "/var/cache/pyprof-pythons";
    for (int m = 14; m <= 15 && n < MAX; m++) {
        char path[300];
        snprintf(path, sizeof path, "%s/root/usr/bin/python3.%d", cache, m);
        if (access(path, X_OK) == 0 && probe(path, &list[n]) == 0) {
            snprintf(list[n].label, sizeof list[n].label, "%s (Debian) %s",
                     list[n].version, list[n].path);
            n++;
        } else if (!said) {
            fprintf(stderr, "SKIP: %s not found (check.sh installs it)\n", path);
        }
    }
    said = 1;
    return cr_make_param_array(struct pp_python, list, n, free_pythons);
}

/* -------------------------------------------------------- processes */

static size_t name_len(const char *var)
{
    return strcspn(var, "=");
}

/* Builds the child's environment (see pp_run). */
static char **child_env(const char *const env[])
{
    size_t cap = 16, n = 0;
    for (char **e = environ; *e; e++)
        cap++;
    for (const char *const *e = env; e && *e; e++)
        cap++;
    char **out = xmalloc(cap * sizeof *out);
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0 &&
            strncmp(*e, "PYPROF_", 7) != 0 &&
            strncmp(*e, "PYTHONDONTWRITEBYTECODE=", 24) != 0)
            out[n++] = *e;
    out[n++] = "PYTHONDONTWRITEBYTECODE=1";
    for (const char *const *e = env; e && *e; e++) {
        size_t len = name_len(*e);
        size_t j = 0;
        for (size_t i = 0; i < n; i++)      /* drop the old NAME= */
            if (!(name_len(out[i]) == len && strncmp(out[i], *e, len) == 0))
                out[j++] = out[i];
        n = j;
        if ((*e)[len] == '=')
            out[n++] = (char *)*e;
    }
    out[n] = NULL;
    return out;
}

struct sink { int fd; char **buf; size_t *len, cap; };

/* Reads what is available; returns 0 at EOF. */
static int drain(struct sink *s)
{
    if (*s->len + 65536 + 1 > s->cap) {
        s->cap = (*s->len + 65536 + 1) * 2;
        *s->buf = xrealloc(*s->buf, s->cap);
    }
    ssize_t k = read(s->fd, *s->buf + *s->len, s->cap - *s->len - 1);
    if (k < 0 && (errno == EINTR || errno == EAGAIN))
        return 1;
    if (k <= 0)
        return 0;
    *s->len += (size_t)k;
    (*s->buf)[*s->len] = 0;
    return 1;
}

/* In the child, before exec: every signal at its default action and none
 * blocked, as a terminal's shell starts a command, whatever make check
 * inherited (nohup, or `make check &` from a script, ignore SIGHUP, SIGINT
 * and SIGQUIT; the tests of what signals do need them to act). */
static void reset_signals(void)
{
    /* The system call itself: glibc's sigaction refuses the two signals
     * it keeps for itself, which make check's parents may have ignored
     * too (seen: 32, in a full make check). */
    struct { void (*handler)(int); unsigned long flags; void (*restorer)(void);
             uint64_t mask; } dfl = { SIG_DFL, 0, NULL, 0 };
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof dfl.mask);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

void pp_run(struct pp_result *r, const char *const argv[],
            const char *const env[], double timeout_s,
            pp_poll_fn *poll_fn, void *poll_arg)
{
    memset(r, 0, sizeof *r);
    r->out = xstrdup("");
    r->err = xstrdup("");
    char **envp = child_env(env);
    int o[2], e[2], x[2];
    cr_assert(pipe(o) == 0 && pipe(e) == 0 && pipe2(x, O_CLOEXEC) == 0,
              "pipe: %s", strerror(errno));
    double t0 = now();
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        reset_signals();
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(o[1], 1);
        dup2(e[1], 2);
        close(o[0]); close(o[1]); close(e[0]); close(e[1]); close(x[0]);
        execvpe(argv[0], (char *const *)argv, envp);
        int err = errno;
        (void)!write(x[1], &err, sizeof err);
        _exit(127);
    }
    setpgid(pid, pid);
    close(o[1]);
    close(e[1]);
    close(x[1]);
    int exec_errno = 0;
    ssize_t got = read(x[0], &exec_errno, sizeof exec_errno);
    close(x[0]);
    r->pid = pid;

    struct sink sinks[2] = {
        { o[0], &r->out, &r->out_len, 1 },
        { e[0], &r->err, &r->err_len, 1 },
    };
    int open_fds = 2, reaped = 0, st = 0;
    double deadline = t0 + timeout_s;
    while (open_fds > 0 || !reaped) {
        if (!reaped && waitpid(pid, &st, WNOHANG) == pid)
            reaped = 1;
        if (now() > deadline && !r->timed_out) {
            r->timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
        if (poll_fn && !reaped)
            poll_fn(poll_arg, pid);
        struct pollfd pf[2];
        nfds_t np = 0;
        for (int i = 0; i < 2; i++)
            if (sinks[i].fd >= 0)
                pf[np++] = (struct pollfd){ .fd = sinks[i].fd, .events = POLLIN };
        if (np == 0) {
            if (!reaped) {
                struct timespec ts = { 0, 2000000 };
                nanosleep(&ts, NULL);
            }
            continue;
        }
        if (poll(pf, np, 2) <= 0)
            continue;
        for (nfds_t k = 0; k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            for (int i = 0; i < 2; i++)
                if (sinks[i].fd == pf[k].fd && !drain(&sinks[i])) {
                    close(sinks[i].fd);
                    sinks[i].fd = -1;
                    open_fds--;
                }
        }
        /* A grandchild holding the pipes open must not hang us. */
        if (reaped && r->timed_out)
            break;
    }
    for (int i = 0; i < 2; i++)
        if (sinks[i].fd >= 0)
            close(sinks[i].fd);
    kill(-pid, SIGKILL);        /* leave nothing of the group behind */
    r->seconds = now() - t0;
    r->status = st;
    r->exited = WIFEXITED(st);
    r->code = r->exited ? WEXITSTATUS(st) : -1;
    r->signaled = WIFSIGNALED(st);
    r->sig = r->signaled ? WTERMSIG(st) : 0;
    free(envp);
    cr_assert(got != (ssize_t)sizeof exec_errno, "cannot run %s: %s",
              argv[0], strerror(exec_errno));
}

const char *const *pp_profile_env(const char *dir, int hz,
                                  const char *const extra[])
{
    size_t n = 0;
    while (extra && extra[n])
        n++;
    const char **env = xmalloc((n + 4) * sizeof *env);
    size_t k = 0;
    env[k++] = xasprintf("LD_PRELOAD=%s", need_env("PYPROF_TEST_LIB"));
    env[k++] = xasprintf("PYPROF_OUT=%s", dir);
    if (hz > 0)
        env[k++] = xasprintf("PYPROF_HZ=%d", hz);
    for (size_t i = 0; i < n; i++)
        env[k++] = extra[i];
    env[k] = NULL;
    return env;
}

void pp_run_twice(struct pp_result *plain, struct pp_result *pre,
                  const char *const argv[], const char *dir, int hz,
                  double timeout_s)
{
    pp_run(plain, argv, NULL, timeout_s, NULL, NULL);
    pp_run(pre, argv, pp_profile_env(dir, hz, NULL), timeout_s, NULL, NULL);
}

double pp_run_measuring(const struct pp_python *py, const char *script,
                        const char *const args[], const char *dir, int hz,
                        const char *key)
{
    struct pp_result plain, pre;
    const char *argv[8] = { py->path, pp_script(script) };
    for (size_t i = 0; args && args[i] && i < 5; i++)
        argv[i + 2] = args[i];
    pp_run_twice(&plain, &pre, argv, dir, hz, 60);
    char what[128];
    snprintf(what, sizeof what, "%s without pyprof", script);
    pp_expect_ok(py, &plain, what);
    pp_expect_ok(py, &pre, script);
    double v = -1;
    char want[64];
    snprintf(want, sizeof want, "%s ", key);
    const char *t = strstr(pre.out, want);
    pp_assert(py, t && sscanf(t + strlen(want), "%lf", &v) == 1,
              "%s printed no %s: %s", script, key, pre.out);
    return v;
}

void pp_run_python(struct pp_result *r, const struct pp_python *py,
                   const char *dir, int hz, const char *const extra_env[],
                   const char *const args[])
{
    size_t n = 0;
    while (args && args[n])
        n++;
    const char **argv = xmalloc((n + 2) * sizeof *argv);
    argv[0] = py->path;
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = args[i];
    argv[n + 1] = NULL;
    pp_run(r, argv, pp_profile_env(dir, hz, extra_env), 60, NULL, NULL);
    free(argv);
}

const char *pp_describe(const struct pp_result *r)
{
    static char buf[96];
    if (r->timed_out)
        snprintf(buf, sizeof buf, "timed out after %.1f s (killed)",
                 r->seconds);
    else if (r->signaled)
        snprintf(buf, sizeof buf, "signal %d (%s)", r->sig,
                 strsignal(r->sig));
    else
        snprintf(buf, sizeof buf, "exit %d", r->code);
    return buf;
}

void pp_expect_ok(const struct pp_python *py, const struct pp_result *r,
                  const char *what)
{
    pp_assert(py, !r->timed_out && r->exited && r->code == 0,
              "%s: expected exit 0, got %s; stderr:\n%.2000s", what,
              pp_describe(r), r->err);
}

void pp_merge(struct pp_result *r, const char *format,
              const char *const opts[], const char *input)
{
    size_t n = 0;
    while (opts && opts[n])
        n++;
    const char **argv = xmalloc((n + 5) * sizeof *argv);
    size_t k = 0;
    argv[k++] = need_env("PYPROF_TEST_MERGE");
    argv[k++] = "--format";
    argv[k++] = format;
    for (size_t i = 0; i < n; i++)
        argv[k++] = opts[i];
    argv[k++] = input;
    argv[k] = NULL;
    pp_run(r, argv, NULL, 60, NULL, NULL);
    free(argv);
}

/* --------------------------------------------------------- files */

static char *tmp_dirs[16];
static size_t n_tmp_dirs;

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void rm_tmpdirs(void)
{
    if (getenv("PYPROF_TEST_KEEP"))
        return;
    for (size_t i = 0; i < n_tmp_dirs; i++)
        nftw(tmp_dirs[i], rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void pp_measure(const struct pp_python *py, const char *what, double value,
                const char *op, double limit)
{
    const char *path = getenv("PP_TEST_MEASURES"), *tag = getenv("PP_TEST_MEASURE_TAG");
    if (!path || !*path)
        return;
    const struct criterion_test *t = criterion_current_test;
    char line[1024];
    int n = snprintf(line, sizeof line, "%s\t%s::%s\t%s\t%s\t%.6g\t%s\t%.6g\n",
                     tag ? tag : "-", t ? t->category : "?", t ? t->name : "?",
                     py ? py->label : "system python3", what, value, op, limit);
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    /* One write of one line with O_APPEND: lines of tests run side by side
     * do not interleave. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n)
        fprintf(stderr, "pp_measure: short write to %s\n", path);
    close(fd);
}

const char *pp_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *path = xasprintf("%s/pyprof-itest.XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp %s: %s", path, strerror(errno));
    if (n_tmp_dirs == 0)
        atexit(rm_tmpdirs);
    if (n_tmp_dirs < sizeof tmp_dirs / sizeof *tmp_dirs)
        tmp_dirs[n_tmp_dirs++] = path;
    return path;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int keep_entry(const struct dirent *d)
{
    return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* Entries of dir ending in suffix, sorted; *n gets how many. */
static struct dirent **entries(const char *dir, const char *suffix, size_t *n)
{
    struct dirent **list = NULL;
    int k = scandir(dir, &list, keep_entry, alphasort);
    *n = 0;
    if (k < 0)
        return NULL;
    for (int i = 0; i < k; i++)
        if (ends_with(list[i]->d_name, suffix))
            list[(*n)++] = list[i];
    return list;
}

size_t pp_count_files(const char *dir, const char *suffix)
{
    size_t n;
    entries(dir, suffix, &n);
    return n;
}

const char *pp_find_file(const char *dir, const char *suffix, size_t idx)
{
    size_t n;
    struct dirent **list = entries(dir, suffix, &n);
    return idx < n ? xasprintf("%s/%s", dir, list[idx]->d_name) : NULL;
}

const char *pp_script(const char *name)
{
    char *path = xasprintf("%s/%s", need_env("PYPROF_TEST_SCRIPTS"), name);
    char *abs = realpath(path, NULL);
    cr_assert_not_null(abs, "test script %s: %s", path, strerror(errno));
    return abs;
}

size_t pp_script_lines(const char *name, const char *marker, long *lines,
                       size_t max)
{
    const char *path = pp_script(name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    char buf[4096];
    long no = 0;
    size_t n = 0;
    while (fgets(buf, sizeof buf, f)) {
        no++;
        if (strstr(buf, marker) && n < max)
            lines[n++] = no;
    }
    fclose(f);
    return n;
}

long pp_script_line(const char *name, const char *marker)
{
    long line;
    cr_assert(pp_script_lines(name, marker, &line, 1) == 1,
              "tests/py/%s has no line marked \"%s\"", name, marker);
    return line;
}

/* ------------------------------------------------ collapsed reports */

void pp_parse_collapsed(const struct pp_python *py, const struct pp_result *r,
                        struct pp_profile *p)
{
    memset(p, 0, sizeof *p);
    size_t cap = 0;
    char *text = xstrdup(r->out);
    long lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        lineno++;
        if (!*line)
            continue;
        char *sp = strrchr(line, ' ');
        char *end = NULL;
        long count = sp ? strtol(sp + 1, &end, 10) : -1;
        pp_assert(py, sp && sp > line && end && !*end && count > 0,
                  "collapsed line %ld is not \"frames count\": %.300s",
                  lineno, line);
        *sp = 0;
        if (p->n == cap) {
            cap = cap ? cap * 2 : 64;
            p->stacks = xrealloc(p->stacks, cap * sizeof *p->stacks);
        }
        struct pp_stack *s = &p->stacks[p->n++];
        s->count = count;
        s->depth = 0;
        size_t fcap = 16;
        s->frames = xmalloc(fcap * sizeof *s->frames);
        for (char *f = line, *semi; f; f = semi) {
            semi = strchr(f, ';');
            if (semi)
                *semi++ = 0;
            if (s->depth == fcap) {
                fcap *= 2;
                s->frames = xrealloc(s->frames, fcap * sizeof *s->frames);
            }
            s->frames[s->depth++] = f;
        }
        p->total += count;
    }
}

int pp_frame_is(const char *frame, const char *qualname)
{
    size_t n = strlen(qualname);
    return strncmp(frame, qualname, n) == 0 &&
           (frame[n] == 0 || strncmp(frame + n, " (", 2) == 0);
}

long pp_frame_loc(const char *frame, char *file, size_t size)
{
    const char *open = strstr(frame, " (");
    const char *colon = strrchr(frame, ':');
    size_t len = strlen(frame);
    if (!open || !colon || colon < open || len < 2 || frame[len - 1] != ')')
        return -1;
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (end != frame + len - 1)
        return -1;
    snprintf(file, size, "%.*s", (int)(colon - open - 2), open + 2);
    return line;
}

long pp_stack_find(const struct pp_stack *s, const char *qualname, size_t from)
{
    for (size_t i = from; i < s->depth; i++)
        if (pp_frame_is(s->frames[i], qualname))
            return (long)i;
    return -1;
}

size_t pp_stack_count(const struct pp_stack *s, const char *qualname)
{
    size_t n = 0;
    for (size_t i = 0; i < s->depth; i++)
        n += pp_frame_is(s->frames[i], qualname);
    return n;
}

long pp_count_with(const struct pp_profile *p, const char *qualname)
{
    long n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (pp_stack_find(&p->stacks[i], qualname, 0) >= 0)
            n += p->stacks[i].count;
    return n;
}

int pp_frame_is_c_call(const char *frame)
{
    size_t n = strlen(frame);
    return n > 6 && !strcmp(frame + n - 6, " (~:0)") &&
           pp_is_c_call(PP_C_CALL_FILE, frame);
}

const char *pp_stack_leaf(const struct pp_stack *s)
{
    size_t d = s->depth;
    if (d >= 2 && pp_frame_is_c_call(s->frames[d - 1]))
        d--;
    return d ? s->frames[d - 1] : "";
}

long pp_count_leaf(const struct pp_profile *p, const char *qualname)
{
    long n = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct pp_stack *s = &p->stacks[i];
        if (s->depth && pp_frame_is(pp_stack_leaf(s), qualname))
            n += s->count;
    }
    return n;
}

long pp_count_leaf_line(const struct pp_profile *p, const char *qualname,
                        long line)
{
    long n = 0;
    char file[1024];
    for (size_t i = 0; i < p->n; i++) {
        const struct pp_stack *s = &p->stacks[i];
        const char *leaf = pp_stack_leaf(s);
        if (pp_frame_is(leaf, qualname) &&
            pp_frame_loc(leaf, file, sizeof file) == line)
            n += s->count;
    }
    return n;
}

int pp_is_ancestor(const struct pp_profile *p, const char *a, const char *b)
{
    for (size_t i = 0; i < p->n; i++) {
        long ia = pp_stack_find(&p->stacks[i], a, 0);
        if (ia >= 0 && pp_stack_find(&p->stacks[i], b, (size_t)ia + 1) >= 0)
            return 1;
    }
    return 0;
}

long pp_top_self(const struct pp_profile *p, char *name, size_t size)
{
    long best = 0;
    if (size)
        *name = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct pp_stack *s = &p->stacks[i];
        if (!s->depth)
            continue;
        const char *leaf = pp_stack_leaf(s);
        const char *open = strstr(leaf, " (");
        size_t len = open ? (size_t)(open - leaf) : strlen(leaf);
        char q[512];
        snprintf(q, sizeof q, "%.*s", (int)len, leaf);
        long n = pp_count_leaf(p, q);
        if (n > best) {
            best = n;
            snprintf(name, size, "%s", q);
        }
    }
    return best;
}

/* ------------------------------------------------------------ JSON */

struct jp { const char *s, *p; char *err; size_t errlen; int failed; };

static void jfail(struct jp *j, const char *what)
{
    if (!j->failed)
        snprintf(j->err, j->errlen, "%s at offset %td", what, j->p - j->s);
    j->failed = 1;
}

static void jws(struct jp *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
        j->p++;
}

static void put_utf8(char **o, unsigned long c)
{
    unsigned char *u = (unsigned char *)*o;
    if (c < 0x80) {
        *u++ = (unsigned char)c;
    } else if (c < 0x800) {
        *u++ = (unsigned char)(0xc0 | c >> 6);
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        *u++ = (unsigned char)(0xe0 | c >> 12);
        *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else {
        *u++ = (unsigned char)(0xf0 | c >> 18);
        *u++ = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
        *u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    }
    *o = (char *)u;
}

static int hex4(const char *p, unsigned long *v)
{
    char buf[5];
    memcpy(buf, p, 4);
    buf[4] = 0;
    char *end;
    if (strspn(buf, "0123456789abcdefABCDEF") != 4)
        return -1;
    *v = strtoul(buf, &end, 16);
    return 0;
}

static char *jstring(struct jp *j)
{
    if (*j->p != '"') {
        jfail(j, "expected a string");
        return NULL;
    }
    j->p++;
    const char *start = j->p;
    while (*j->p && *j->p != '"')
        j->p += (*j->p == '\\' && j->p[1]) ? 2 : 1;
    if (*j->p != '"') {
        jfail(j, "unterminated string");
        return NULL;
    }
    char *out = xmalloc((size_t)(j->p - start) + 1), *o = out;
    for (const char *q = start; q < j->p; q++) {
        if (*q != '\\') {
            if ((unsigned char)*q < 0x20) {
                jfail(j, "control character in string");
                return NULL;
            }
            *o++ = *q;
            continue;
        }
        unsigned long c, lo;
        switch (*++q) {
        case '"': case '\\': case '/': *o++ = *q; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            if (q + 5 > j->p || hex4(q + 1, &c) != 0) {
                jfail(j, "bad \\u escape");
                return NULL;
            }
            q += 4;
            if (c >= 0xd800 && c < 0xdc00 && q + 7 <= j->p && q[1] == '\\' &&
                q[2] == 'u' && hex4(q + 3, &lo) == 0 && lo >= 0xdc00 &&
                lo < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                q += 6;
            }
            put_utf8(&o, c);
            break;
        default:
            jfail(j, "bad escape");
            return NULL;
        }
    }
    *o = 0;
    j->p++;
    return out;
}

static void jvalue(struct jp *j, struct pp_json *v, int depth);

static void jcontainer(struct jp *j, struct pp_json *v, int depth, char close)
{
    int obj = close == '}';
    size_t cap = 0;
    v->type = obj ? PP_JOBJ : PP_JARR;
    j->p++;
    jws(j);
    if (*j->p == close) {
        j->p++;
        return;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 8;
            v->items = xrealloc(v->items, cap * sizeof *v->items);
            if (obj)
                v->keys = xrealloc(v->keys, cap * sizeof *v->keys);
        }
        jws(j);
        if (obj) {
            v->keys[v->n] = jstring(j);
            jws(j);
            if (j->failed || *j->p != ':') {
                jfail(j, "expected ':'");
                return;
            }
            j->p++;
        }
        jvalue(j, &v->items[v->n++], depth + 1);
        if (j->failed)
            return;
        jws(j);
        if (*j->p == ',') {
            j->p++;
        } else if (*j->p == close) {
            j->p++;
            return;
        } else {
            jfail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
            return;
        }
    }
}

static void jvalue(struct jp *j, struct pp_json *v, int depth)
{
    memset(v, 0, sizeof *v);
    jws(j);
    if (depth > 200) {
        jfail(j, "nested too deeply");
        return;
    }
    switch (*j->p) {
    case '{':
        jcontainer(j, v, depth, '}');
        return;
    case '[':
        jcontainer(j, v, depth, ']');
        return;
    case '"':
        v->type = PP_JSTR;
        v->str = jstring(j);
        return;
    }
    static const struct { const char *word; enum pp_json_type t; int b; } words[] = {
        { "null", PP_JNULL, 0 }, { "true", PP_JBOOL, 1 }, { "false", PP_JBOOL, 0 },
    };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(j->p, words[i].word, n) == 0) {
            v->type = words[i].t;
            v->num = words[i].b;
            j->p += n;
            return;
        }
    }
    if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
        char *end;
        v->type = PP_JNUM;
        v->num = strtod(j->p, &end);
        j->p = end;
        return;
    }
    jfail(j, "expected a value");
}

struct pp_json *pp_json_parse(const char *text, char *err, size_t errlen)
{
    struct jp j = { text, text, err, errlen, 0 };
    struct pp_json *v = xmalloc(sizeof *v);
    jvalue(&j, v, 0);
    jws(&j);
    if (!j.failed && *j.p)
        jfail(&j, "trailing data");
    return j.failed ? NULL : v;
}

const struct pp_json *pp_parse_json(const struct pp_python *py,
                                    const struct pp_result *r)
{
    char err[128] = "";
    const struct pp_json *doc = pp_json_parse(r->out, err, sizeof err);
    pp_assert(py, doc != NULL, "pyprof-merge --format json printed no valid "
              "JSON (%s); stdout starts:\n%.500s\nstderr:\n%.500s", err,
              r->out, r->err);
    return doc;
}

const struct pp_json *pp_json_get(const struct pp_json *j, const char *path)
{
    while (j && *path) {
        size_t len = strcspn(path, ".");
        const struct pp_json *next = NULL;
        if (j->type == PP_JOBJ) {
            for (size_t i = 0; i < j->n && !next; i++)
                if (strlen(j->keys[i]) == len &&
                    strncmp(j->keys[i], path, len) == 0)
                    next = &j->items[i];
        } else if (j->type == PP_JARR && isdigit((unsigned char)*path)) {
            size_t idx = strtoul(path, NULL, 10);
            next = idx < j->n ? &j->items[idx] : NULL;
        }
        j = next;
        path += len + (path[len] == '.');
    }
    return j;
}

double pp_json_num(const struct pp_json *j, const char *path, double dflt)
{
    j = pp_json_get(j, path);
    return j && j->type == PP_JNUM ? j->num : dflt;
}

const char *pp_json_str(const struct pp_json *j, const char *path)
{
    j = pp_json_get(j, path);
    return j && j->type == PP_JSTR ? j->str : NULL;
}

size_t pp_json_len(const struct pp_json *j, const char *path)
{
    j = pp_json_get(j, path);
    return j && (j->type == PP_JARR || j->type == PP_JOBJ) ? j->n : (size_t)-1;
}

const struct pp_json *pp_json_find(const struct pp_json *arr, const char *key,
                                   const char *value)
{
    if (!arr || arr->type != PP_JARR)
        return NULL;
    for (size_t i = 0; i < arr->n; i++) {
        const char *s = pp_json_str(&arr->items[i], key);
        if (s && strcmp(s, value) == 0)
            return &arr->items[i];
    }
    return NULL;
}

const char *pp_on_path(const char *name)
{
    static char found[1024];
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(found, sizeof found, "%.*s/%s", (int)n, path, name);
        if (access(found, X_OK) == 0)
            return found;
        path += n + (path[n] == ':');
    }
    return NULL;
}

void pp_go_pprof(const struct pp_python *py, struct pp_result *r,
                     const char *const args[], const char *file)
{
    static char env_home[1100], env_cache[1100];
    const char *home = pp_tmpdir();
    snprintf(env_home, sizeof env_home, "HOME=%s", home);
    snprintf(env_cache, sizeof env_cache, "GOCACHE=%s/cache", home);
    const char *env[] = { env_home, env_cache, NULL };
    const char *argv[16] = { "go", "tool", "pprof" };
    size_t k = 3;
    for (size_t i = 0; args[i] && k < 14; i++)
        argv[k++] = args[i];
    argv[k++] = file;
    argv[k] = NULL;
    pp_run(r, argv, env, 120, NULL, NULL);
    pp_assert(py, r->exited && r->code == 0, "go tool pprof %s: %s; stderr:\n%.1000s",
              args[0], pp_describe(r), r->err);
}

long pp_child_ended(const struct pp_python *py, const struct pp_result *r,
                    const char *script, const char *what, long *code)
{
    long child = -1;
    const char *at = r->out ? strstr(r->out, "child ") : NULL;
    pp_assert(py, at && sscanf(at, "child %ld %ld", &child, code) == 2,
              "%s: %s did not name its child:\n%s", what, script,
              r->out ? r->out : "");
    return child;
}
