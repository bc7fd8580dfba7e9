/*
 * test_live.c — pyprof-merge --live in a real terminal: tmux (Debian's
 * package) runs the view in a shell of an 80x24 window while a
 * three-process tree writes into the directory, and the test reads the
 * screen as a user would (capture-pane) and types at it (send-keys):
 * every process and the hot function within 3 s, a key that changes the
 * mode, one that picks a process, a resize, and q, after which the shell's
 * screen is back with the view's exit status (pyprof-merge(1), LIVE VIEW).
 * The same view under pyprof-run --top, which ends it when the command
 * ends, or lets the command go on when the view is quit (pyprof-run(1)).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static char sock[64];

/* tmux -L sock ARGS...; its output in *r; fails the test unless it ran. */
static void tmux(struct pp_result *r, const char *const args[])
{
    const char *argv[16] = { "tmux", "-L", sock };
    size_t k = 3;
    for (size_t i = 0; args[i] && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    pp_run(r, argv, (const char *const[]){ "TERM=xterm-256color", NULL }, 20, NULL, NULL);
    cr_assert(r->exited && r->code == 0, "tmux %s: %s %s", args[0], pp_describe(r), r->err);
}

static void screen(struct pp_result *r)
{
    tmux(r, (const char *const[]){ "capture-pane", "-p", "-t", "lv:0", NULL });
}

static void keys(const char *k)
{
    struct pp_result r;
    tmux(&r, (const char *const[]){ "send-keys", "-t", "lv:0", k, NULL });
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The pids of the profiles in dir (the files' names: prog.PID.ID.zst). */
static size_t pids_in(const char *dir, long *pids, size_t cap)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < cap) {
        const char *dot = strchr(e->d_name, '.');
        if (dot && strstr(e->d_name, ".zst"))
            pids[n++] = strtol(dot + 1, NULL, 10);
    }
    if (d)
        closedir(d);
    return n;
}

/* Waits up to secs for the screen to hold every string of want; returns
 * the last screen. */
static int wait_for(struct pp_result *r, const char *const want[], double secs)
{
    double until = now_s() + secs;
    for (;;) {
        screen(r);
        size_t i = 0;
        while (want[i] && strstr(r->out, want[i]))
            i++;
        if (!want[i])
            return 1;
        if (now_s() > until)
            return 0;
        usleep(100000);
    }
}

/* A failed check must not leave the tmux server and its tree behind. */
static void kill_tmux(void)
{
    if (!sock[0])
        return;
    /* ^C on the tree's terminal: SIGINT to its processes, as a user would */
    const char *intr[] = { "tmux", "-L", sock, "send-keys", "-t", "lv:1", "C-c", NULL };
    const char *argv[] = { "tmux", "-L", sock, "kill-server", NULL };
    struct pp_result r;
    pp_run(&r, intr, NULL, 20, NULL, NULL);
    pp_run(&r, argv, NULL, 20, NULL, NULL);
}

Test(live, the_live_view_shows_the_tree_takes_keys_and_gives_the_terminal_back,
     .timeout = 90, .fini = kill_tmux)
{
    if (!pp_on_path("tmux")) {
        fprintf(stderr, "SKIP: live view test: tmux (Debian's package) is not installed\n");
        return;
    }
    snprintf(sock, sizeof sock, "pyprof-test-%d", (int)getpid());
    const char *dir = pp_tmpdir();
    char work[4096], view[4096];
    snprintf(work, sizeof work,
             "env LD_PRELOAD=%s PYPROF_OUT=%s PYPROF_FLUSH_MS=200 /usr/bin/python3 %s 12",
             getenv("PYPROF_TEST_LIB"), dir, pp_script("live_tree.py"));
    snprintf(view, sizeof view, "%s --live %s; echo EXIT=$?", getenv("PYPROF_TEST_MERGE"),
             dir);
    struct pp_result r;
    tmux(&r, (const char *const[]){ "new-session", "-d", "-s", "lv", "-x", "80", "-y", "24",
                                    "sh", NULL });
    keys("PS1='$ '");
    keys("Enter");
    tmux(&r, (const char *const[]){ "new-window", "-d", "-t", "lv:1", work, NULL });
    double t0 = now_s();
    long pids[8];
    size_t n;
    while ((n = pids_in(dir, pids, 8)) < 3 && now_s() < t0 + 10)
        usleep(50000);
    cr_assert_eq(n, 3, "the tree made %zu profiles in 10 s", n);
    keys(view);
    keys("Enter");
    double t1 = now_s();
    char p[3][32];
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], " %ld ", pids[i]);
    const char *tree[] = { p[0], p[1], p[2], "hot_spin (", "running", NULL };
    int ok = wait_for(&r, tree, 3);
    cr_expect(ok, "after %.1f s the view shows no 3 processes and hot_spin:\n%s",
              now_s() - t1, r.out);

    keys("c");
    cr_expect(wait_for(&r, (const char *const[]){ "mode cpu", "hot_spin (", NULL }, 2),
              "c did not switch to cpu mode:\n%s", r.out);
    keys("p");
    cr_expect(wait_for(&r, (const char *const[]){ "  pid ", "> ", NULL }, 2),
              "p did not pick a process:\n%s", r.out);
    keys("t");
    cr_expect(wait_for(&r, (const char *const[]){ ", thread MainThread", NULL }, 2),
              "t did not pick the process's thread:\n%s", r.out);
    tmux(&r, (const char *const[]){ "resize-window", "-t", "lv", "-x", "100", "-y", "30",
                                    NULL });
    cr_expect(wait_for(&r, (const char *const[]){ "pyprof live", "q quit", NULL }, 2),
              "no view after a resize:\n%s", r.out);
    size_t rows = 0;
    for (const char *s = r.out; (s = strchr(s, '\n')); s++)
        rows++;
    cr_expect(rows == 30 && strstr(strstr(r.out, "pyprof live"), "\n") &&
                  strstr(r.out, "q quit"),
              "the view is not redrawn to 30 rows (%zu):\n%s", rows, r.out);

    keys("q");
    cr_expect(wait_for(&r, (const char *const[]){ "EXIT=0", NULL }, 3) &&
                  !strstr(r.out, "pyprof live") && strstr(r.out, "$ "),
              "after q the shell's screen is not back with exit 0:\n%s", r.out);
}

/* pyprof-run --top over live_tree.py SECS in the session's shell; with
 * quit, q is typed as soon as the view shows the tree. */
static void run_top(const char *dir, const char *secs, int quit)
{
    char cmd[16384], report[4096];
    snprintf(report, sizeof report, "%s/r.txt", dir);
    snprintf(cmd, sizeof cmd, "clear; %s --top -o %s --report %s -- /usr/bin/python3 %s %s; "
             "echo EXIT=$?", getenv("PYPROF_TEST_RUN"), dir, report,
             pp_script("live_tree.py"), secs);
    keys(cmd);
    keys("Enter");
    struct pp_result r;
    cr_expect(wait_for(&r, (const char *const[]){ "3 processes", "hot_spin (", NULL }, 4),
              "pyprof-run --top: no view of the tree within 4 s:\n%s", r.out);
    if (quit) {
        keys("q");
        cr_expect(wait_for(&r, (const char *const[]){ "q quits the view", NULL }, 2) &&
                      !strstr(r.out, "pyprof live") && !strstr(r.out, "EXIT="),
                  "after q the shell's screen is not back, or the command did not go "
                  "on:\n%s", r.out);
    }
    cr_expect(wait_for(&r, (const char *const[]){ "EXIT=0", "pyprof: 3 processes", NULL },
                       20) && !strstr(r.out, "pyprof live"),
              "pyprof-run --top did not end with the command's status and its summary on "
              "the shell's screen:\n%s", r.out);
    struct stat st;
    char out[4096];
    snprintf(out, sizeof out, "%s/command.out", dir);
    cr_expect(stat(report, &st) == 0 && st.st_size > 0 && stat(out, &st) == 0,
              "no report %s or no %s", report, out);
}

Test(live, pyprof_run_top_shows_the_tree_and_ends_as_the_command_does, .timeout = 120,
     .fini = kill_tmux)
{
    if (!pp_on_path("tmux")) {
        fprintf(stderr, "SKIP: pyprof-run --top test: tmux (Debian's package) is not "
                        "installed\n");
        return;
    }
    snprintf(sock, sizeof sock, "pyprof-test-%d", (int)getpid());
    struct pp_result r;
    tmux(&r, (const char *const[]){ "new-session", "-d", "-s", "lv", "-x", "80", "-y", "24",
                                    "sh", NULL });
    keys("PS1='$ '");
    keys("Enter");
    run_top(pp_tmpdir(), "4", 0);
    run_top(pp_tmpdir(), "5", 1);
}

Test(live, the_live_view_refuses_without_a_terminal)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { getenv("PYPROF_TEST_MERGE"), "--live", dir, NULL };
    struct pp_result r;
    pp_run(&r, argv, NULL, 20, NULL, NULL);
    cr_expect(r.exited && r.code == 2 && strstr(r.err, "terminal"),
              "pyprof-merge --live without a terminal: %s, %s", pp_describe(&r), r.err);
}
