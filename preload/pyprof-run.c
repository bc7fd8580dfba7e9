/*
 * pyprof-run — runs a command with every Python process of its tree
 * profiled: sets LD_PRELOAD and PYPROF_*, forwards signals, exits with the
 * command's status, and says on stderr what was recorded.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void usage(FILE *o)
{
    fputs("usage: pyprof-run [options] -- command [args...]\n"
          "  -o, --output DIR   where the profiles go (default ./pyprof.out)\n"
          "  -r, --rate HZ      samples per second per thread\n"
          "      --no-follow    profile the command only, not its descendants\n"
          "      --only GLOB    profile only processes whose command line matches\n"
          "  -q, --quiet        no summary line\n"
          "      --report FILE  merge into FILE when the command ends\n"
          "      --format F     format of --report (default: from FILE's extension)\n"
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

static const char *format_of(const char *file)
{
    size_t n = strlen(file);
    struct { const char *ext, *fmt; } map[] = {
        { ".txt", "text" }, { ".json", "json" }, { ".collapsed", "collapsed" },
        { ".folded", "collapsed" },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        size_t e = strlen(map[i].ext);
        if (n > e && !strcmp(file + n - e, map[i].ext))
            return map[i].fmt;
    }
    return "text";
}

/* Runs argv, waits, returns the wait status (or -1). */
static int run(char *const argv[], const char *out_file)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (out_file && !freopen(out_file, "w", stdout))
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

static void summary(const char *merge, const char *dir)
{
    char tmp[] = "/tmp/pyprof-run.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    close(fd);
    char *argv[] = { (char *)merge, "--format", "json", (char *)dir, NULL };
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

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        { "output", required_argument, 0, 'o' }, { "rate", required_argument, 0, 'r' },
        { "no-follow", no_argument, 0, 'N' }, { "only", required_argument, 0, 'O' },
        { "quiet", no_argument, 0, 'q' }, { "report", required_argument, 0, 'R' },
        { "format", required_argument, 0, 'F' }, { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
    };
    const char *out = "pyprof.out", *rate = NULL, *only = NULL, *report = NULL,
               *format = NULL;
    int follow = 1, quiet = 0, c;
    while ((c = getopt_long(argc, argv, "+o:r:qhV", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'r': rate = optarg; break;
        case 'N': follow = 0; break;
        case 'O': only = optarg; break;
        case 'q': quiet = 1; break;
        case 'R': report = optarg; break;
        case 'F': format = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': puts("pyprof-run " PACKAGE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    char lib[PATH_MAX], merge[PATH_MAX], dir[PATH_MAX];
    if (locate("libpyprof.so", PYPROF_LIBDIR, lib, sizeof lib) != 0) {
        fprintf(stderr, "pyprof-run: cannot find libpyprof.so (looked next to this "
                        "program and in %s)\n", PYPROF_LIBDIR);
        return 2;
    }
    int have_merge = locate("pyprof-merge", PYPROF_BINDIR, merge, sizeof merge) == 0;
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

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);

    child = fork();
    if (child < 0) {
        perror("pyprof-run: fork");
        return 2;
    }
    if (child == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
            sigaction(sigs[i], &dfl, NULL);
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
        unsetenv("PYPROF_PARENT");
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "pyprof-run: %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR) {
            perror("pyprof-run: waitpid");
            return 2;
        }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);

    if (report) {
        if (!have_merge) {
            fprintf(stderr, "pyprof-run: pyprof-merge not found; no report\n");
        } else {
            char *margv[] = { merge, "--format", (char *)(format ? format : format_of(report)),
                              "-o", (char *)report, dir, NULL };
            int ms = run(margv, NULL);
            if (ms < 0 || !WIFEXITED(ms) || WEXITSTATUS(ms) > 1)
                fprintf(stderr, "pyprof-run: merging into %s failed\n", report);
        }
    }
    if (!quiet && have_merge)
        summary(merge, dir);
    if (!quiet && report)
        fprintf(stderr, "pyprof: report in %s\n", report);
    return code;
}
