/*
 * test_options.c — PYPROF_FOLLOW, PYPROF_ONLY, programs that close every
 * fd, folding identical workers, and pyprof-run's exit status.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 400

PP_TEST(options, follow_0_profiles_the_command_only, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *env[] = { "PYPROF_FOLLOW=0", NULL };
    const char *args[] = { pp_script("spawns.py"), NULL };
    pp_run_python(&run, py, dir, HZ, env, args);
    pp_expect_ok(py, &run, "spawns.py");
    pp_expect(py, pp_count_files(dir, ".zst") == 1,
              "PYPROF_FOLLOW=0: expected only the command's file, found %zu",
              pp_count_files(dir, ".zst"));
    /* Fork children are not profiled either (pyprof(7)): neither workers
     * that run Python for a while nor a fork that execs at once (spawns.py's
     * preexec_fn child left a file whenever a tick came before its exec). */
    const char *forks = pp_tmpdir();
    const char *fargs[] = { pp_script("fork_exits.py"), NULL };
    pp_run_python(&run, py, forks, HZ, env, fargs);
    pp_expect(py, run.exited && strstr(run.out, "work_exit"), "fork_exits.py: %s\n%s",
              pp_describe(&run), run.err);
    pp_expect(py, pp_count_files(forks, ".zst") == 1,
              "PYPROF_FOLLOW=0: fork children were profiled: %zu files",
              pp_count_files(forks, ".zst"));
}

static size_t occurrences(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* A PYPROF_LOG that is not 0, 1 or 2 is said once for the whole tree, by
 * its first Python, and the default level applies (pyprof(7), PYPROF_LOG):
 * nothing else of pyprof on stderr, or the level-1 lines in the log file. */
PP_TEST(options, a_bad_log_level_is_said_once, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *env[] = { "PYPROF_LOG=yes", NULL };
    const char *args[] = { pp_script("spawns.py"), NULL };
    pp_run_python(&run, py, dir, HZ, env, args);
    pp_expect_ok(py, &run, "spawns.py");
    pp_expect(py, occurrences(run.err, "]: PYPROF_LOG=yes is not 0, 1 or 2; using 0\n") == 1 &&
                  occurrences(run.err, "pyprof[") == 1,
              "PYPROF_LOG=yes: expected one message and nothing else of pyprof:\n%s",
              run.err);
    pp_expect(py, pp_count_files(dir, ".zst") >= 8,
              "the tree was not profiled as usual: %zu files", pp_count_files(dir, ".zst"));

    char log_file[4096], log_env[4200];
    snprintf(log_file, sizeof log_file, "%s/log", pp_tmpdir());
    snprintf(log_env, sizeof log_env, "PYPROF_LOG_FILE=%s", log_file);
    const char *env2[] = { "PYPROF_LOG=debug", log_env, NULL };
    pp_run_python(&run, py, pp_tmpdir(), HZ, env2, args);
    pp_expect_ok(py, &run, "spawns.py with PYPROF_LOG_FILE");
    pp_expect(py, !strstr(run.err, "pyprof["), "messages on stderr:\n%s", run.err);
    static char text[1 << 16];
    FILE *f = fopen(log_file, "r");
    text[0] = 0;
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
    }
    pp_expect(py, occurrences(text, "]: PYPROF_LOG=debug is not 0, 1 or 2; using 1\n") == 1 &&
                  occurrences(text, "pyprof[") > 1,
              "PYPROF_LOG_FILE: expected the message once among the level-1 lines:\n%s",
              text);
}

PP_TEST(options, only_profiles_matching_command_lines, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *env[] = { "PYPROF_ONLY=*kid.py env_i*", NULL };
    const char *args[] = { pp_script("spawns.py"), NULL };
    pp_run_python(&run, py, dir, HZ, env, args);
    pp_expect_ok(py, &run, "spawns.py");
    pp_assert(py, pp_count_files(dir, ".zst") == 1,
              "PYPROF_ONLY: expected 1 file, found %zu", pp_count_files(dir, ".zst"));
    struct pp_result rep;
    pp_merge(&rep, "collapsed", NULL, dir);
    pp_expect(py, strstr(rep.out, "kid_env_i (") != NULL,
              "the matching child (reached through env -i) is not in the report");
}

PP_TEST(options, closing_every_fd_does_not_lose_the_profile, .timeout = 60)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("close_fds.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "close_fds.py");
    pp_assert(py, strstr(run.out, "held 600"), "output changed: %s", run.out);
    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    pp_expect(py, pp_json_get(doc, "processes.0.complete")->num == 1, "file incomplete");
    struct pp_result col;
    pp_merge(&col, "collapsed", NULL, dir);
    struct pp_profile prof;
    pp_parse_collapsed(py, &col, &prof);
    /* after_close is most of the run: judged by its share of the samples
     * the run got, which a loaded machine does not shrink as it does the
     * count. */
    pp_measure(py, "after_close share", prof.total ?
               (double)pp_count_with(&prof, "after_close") / (double)prof.total : 0, ">=", 0.5);
    pp_expect(py, prof.total >= HZ / 10 && pp_count_with(&prof, "after_close") * 2 >= prof.total,
              "only %ld of %ld samples after the fds were closed",
              pp_count_with(&prof, "after_close"), prof.total);
}

PP_TEST(options, fold_workers_reports_identical_workers_as_one, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("mp_sum.py"), "fork", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "mp_sum.py");
    struct pp_result rep;
    const char *opts[] = { "--fold-workers", NULL };
    pp_merge(&rep, "json", opts, dir);
    const struct pp_json *doc = pp_parse_json(py, &rep);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    int folded3 = 0;
    for (size_t i = 0; procs && i < procs->n; i++)
        folded3 |= pp_json_num(&procs->items[i], "folded", 0) == 3;
    pp_expect(py, procs && procs->n == 2 && folded3,
              "expected the parent and one entry folding 3 workers, got %zu processes",
              procs ? procs->n : 0);
    /* The folded entry counts the whole group: with the parent's, every
     * sample of the run (the unfolded report's total). */
    const struct pp_json *plain = pp_json_report(py, dir, NULL, 0);
    double all = pp_json_num(plain, "totals.samples", -1), sum = 0;
    for (size_t i = 0; procs && i < procs->n; i++)
        sum += pp_json_num(&procs->items[i], "samples", 0);
    pp_expect(py, all > 0 && sum == all, "folded processes' samples add up to %g, "
              "the run has %g", sum, all);
    char want[64];
    pp_merge(&rep, "text", opts, dir);
    for (size_t i = 0; procs && i < procs->n; i++)
        if (pp_json_num(&procs->items[i], "folded", 0) == 3) {
            snprintf(want, sizeof want, " %.0f ",
                     pp_json_num(&procs->items[i], "samples", 0));
            pp_expect(py, strstr(rep.out, want), "the text tree does not show the "
                      "group's %s samples:\n%.2000s", want, rep.out);
        }
}

/* Options that cannot mean anything are refused with a message naming
 * them and exit status 2 (pyprof-merge(1)). */
PP_TEST(options, pyprof_merge_refuses_a_pid_the_input_lacks_and_a_bad_top,
        .timeout = 60)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    /* Long enough to be sampled: `-c pass` may end before its interpreter
     * is ready to be, and leave no file. */
    const char *args[] = { "-c", "import time; time.sleep(0.2)", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "python -c 'time.sleep(0.2)'");
    pp_assert(py, pp_count_files(dir, ".zst") == 1, "no profile of the run to merge");
    static const char *const bad[][3] = {
        { "--pid", "999999999", "no process of the input has that pid" },
        { "--top", "-3", "expected a positive number" },
        { "--top", "0", "expected a positive number" },
        { "--top", "x", "expected a positive number" },
    };
    static const char *const formats[] = { "collapsed", "pstats", "text" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
            struct pp_result rep;
            const char *opts[] = { bad[i][0], bad[i][1], NULL };
            pp_merge(&rep, formats[k], opts, dir);
            pp_expect(py, rep.exited && rep.code == 2 && strstr(rep.err, bad[i][2]) &&
                      rep.out_len == 0, "%s %s --format %s: %s, %zu bytes out, "
                      "stderr: %.300s", bad[i][0], bad[i][1], formats[k],
                      pp_describe(&rep), rep.out_len, rep.err);
        }
}

Test(options, pyprof_run_exits_with_the_commands_status, .timeout = 60)
{
    const char *dir = pp_tmpdir();
    const char *run = getenv("PYPROF_TEST_RUN");
    struct { const char *code; int exited, value; } cases[] = {
        { "import sys; sys.exit(5)", 1, 5 },
        { "import os; os.kill(os.getpid(), 9)", 1, 128 + 9 },
        { "import os; os.kill(os.getpid(), 15)", 1, 128 + 15 },
    };
    for (size_t i = 0; i < 3; i++) {
        const char *argv[] = { run, "-q", "-o", dir, "--", "/usr/bin/python3", "-c",
                               cases[i].code, NULL };
        struct pp_result r;
        pp_run(&r, argv, NULL, 30, NULL, NULL);
        cr_expect(r.exited && r.code == cases[i].value, "%s: pyprof-run %s, expected exit %d",
                  cases[i].code, pp_describe(&r), cases[i].value);
    }
}

/* A program that sets its own title (as setproctitle does) is labelled
 * by the last title it set while it ran, in the JSON report's "title"
 * and the text tree's COMMAND (pyprof-merge(1), process labels); the
 * argv stays as it was.  Builds before 2026-11-29 read the command line
 * once, when the file began. */
PP_TEST(options, a_process_that_sets_its_title_is_labelled_by_the_last_one,
        .timeout = 60)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("set_title.py"), "svc: first",
                           "svc: worker 7 [demo]", "0.5", NULL };
    pp_run_python(&run, py, dir, 100, NULL, args);
    pp_expect_ok(py, &run, "set_title.py");
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *proc = pp_json_process(doc, run.pid, NULL);
    pp_assert(py, proc, "no process %ld in the report", (long)run.pid);
    const char *title = pp_json_str(proc, "title");
    pp_expect(py, title && !strcmp(title, "svc: worker 7 [demo]"), "title %s, expected "
              "the last one set", title ? title : "null");
    const struct pp_json *argv = pp_json_get(proc, "argv");
    pp_expect(py, argv && argv->n == 5, "argv has %zu entries, the command line had 5",
              argv ? argv->n : 0);
    struct pp_result text;
    pp_merge(&text, "text", NULL, dir);
    pp_expect(py, strstr(text.out, " svc: worker 7 [demo]\n"), "the text tree's "
              "COMMAND is not the title:\n%s", text.out);
    /* A command line that ends in empty arguments, which the kernel shows
     * as NULs only, is not a title (builds before 2026-11-29 wrote one) */
    const char *dir2 = pp_tmpdir();
    const char *args2[] = { pp_script("burn.py"), "0.6", "", "", NULL };
    pp_run_python(&run, py, dir2, 100, NULL, args2);
    pp_expect_ok(py, &run, "burn.py 0.6 '' ''");
    doc = pp_json_report(py, dir2, "wall", 0);
    proc = pp_json_process(doc, run.pid, NULL);
    pp_assert(py, proc, "no process %ld in the report", (long)run.pid);
    title = pp_json_str(proc, "title");
    pp_expect(py, !title, "a command line ending in empty arguments was taken for the "
              "title \"%s\"", title ? title : "");
}

/* The start of a file (up to n bytes, NUL-terminated) into buf; 0 if it
 * cannot be read. */
static size_t head_of(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[got] = 0;
    return got;
}

/* pyprof-run --report writes the format its file's extension names
 * (pyprof-run(1), --report), --report-format overrides it, the summary
 * says which; an extension that names none, or a format that does not
 * exist, is refused before the command runs.  Builds before 2026-11-29
 * wrote text into every file but .json and .collapsed. */
Test(options, pyprof_run_writes_the_report_in_the_format_its_extension_names,
     .timeout = 120)
{
    const char *run = getenv("PYPROF_TEST_RUN");
    struct { const char *file, *opt, *fmt, *starts; size_t len; } cases[] = {
        { "r.html", NULL, "html", "<!DOCTYPE html>", 15 },
        { "r.txt", NULL, "text", "pyprof report", 13 },
        { "r.json", NULL, "json", "{\"format\": \"pyprof-report\"", 26 },
        { "r.speedscope.json", NULL, "speedscope", "{\"$schema\": \"https://www.speedscope", 35 },
        { "r.gecko.json", NULL, "gecko", "{\"meta\": {", 10 },
        { "r.pb.gz", NULL, "pprof", "\x1f\x8b", 2 },
        { "r.pstats", NULL, "pstats", "{(", 2 },
        { "r.folded", NULL, "collapsed", "", 0 },
        { "r.html", "json", "json", "{\"format\": \"pyprof-report\"", 26 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *dir = pp_tmpdir();
        char report[4096], out[4096], head[64];
        snprintf(report, sizeof report, "%s/%s", dir, cases[i].file);
        snprintf(out, sizeof out, "%s/out", dir);
        const char *argv[] = { run, "-o", out, "--report", report,
                               cases[i].opt ? "--report-format" : "--", cases[i].opt,
                               "--", "/usr/bin/python3", "-c",
                               "[i * i for i in range(300000)]", NULL };
        if (!cases[i].opt)
            memmove(&argv[5], &argv[7], 5 * sizeof *argv);
        struct pp_result r;
        pp_run(&r, argv, NULL, 60, NULL, NULL);
        cr_expect(r.exited && r.code == 0, "%s: pyprof-run %s\n%s", cases[i].file,
                  pp_describe(&r), r.err);
        size_t got = head_of(report, head, sizeof head);
        cr_expect(got > 0 && !memcmp(head, cases[i].starts, cases[i].len),
                  "%s (%s): the report starts with \"%.20s\", not %s's \"%s\"",
                  cases[i].file, cases[i].opt ? cases[i].opt : "by extension", head,
                  cases[i].fmt, cases[i].starts);
        char said[4200];
        snprintf(said, sizeof said, "pyprof: report (%s) in %s", cases[i].fmt, report);
        cr_expect(strstr(r.err, said), "%s: the summary does not say \"%s\":\n%s",
                  cases[i].file, said, r.err);
    }
    /* refused before the command runs: it would have made the marker */
    const char *refused[][2] = { { "r.report", NULL }, { "r.html", "flamegraph" } };
    for (size_t i = 0; i < 2; i++) {
        const char *dir = pp_tmpdir();
        char report[4096], marker[4096];
        snprintf(report, sizeof report, "%s/%s", dir, refused[i][0]);
        snprintf(marker, sizeof marker, "%s/ran", dir);
        const char *argv[] = { run, "-q", "-o", dir, "--report", report,
                               refused[i][1] ? "--report-format" : "--", refused[i][1],
                               "--", "/usr/bin/touch", marker, NULL };
        if (!refused[i][1])
            memmove(&argv[6], &argv[8], 4 * sizeof *argv);
        struct pp_result r;
        pp_run(&r, argv, NULL, 30, NULL, NULL);
        cr_expect(r.exited && r.code == 2, "%s %s: pyprof-run %s, expected exit 2",
                  refused[i][0], refused[i][1] ? refused[i][1] : "", pp_describe(&r));
        cr_expect(access(marker, F_OK) != 0, "%s: the command ran", refused[i][0]);
        cr_expect(strstr(r.err, refused[i][1] ? "--report-format" : "extension"),
                  "%s: pyprof-run said: %s", refused[i][0], r.err);
    }
}

struct sender { const char *ready; int sent; };

/* Once the script is ready, sends pyprof-run (not the script) every
 * signal it forwards, SIGINT last. */
static void send_signals(void *arg, pid_t pid)
{
    struct sender *s = arg;
    if (s->sent || access(s->ready, F_OK) != 0)
        return;
    const int sigs[] = { SIGUSR1, SIGUSR2, SIGHUP, SIGWINCH, SIGQUIT };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        kill(pid, sigs[i]);
        usleep(50000);
    }
    kill(pid, SIGINT);
    s->sent = 1;
}

Test(options, pyprof_run_forwards_signals_to_the_command, .timeout = 60)
{
    const char *dir = pp_tmpdir();
    char ready[4096];
    snprintf(ready, sizeof ready, "%s/ready", pp_tmpdir());
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "-q", "-o", dir, "--",
                           "/usr/bin/python3", pp_script("signals.py"), ready, NULL };
    struct sender s = { ready, 0 };
    struct pp_result r;
    pp_run(&r, argv, NULL, 40, send_signals, &s);
    cr_assert(s.sent, "the script never became ready: %s\n%s", r.out, r.err);
    cr_expect(strstr(r.out, "SIGHUP SIGQUIT SIGUSR1 SIGUSR2 SIGWINCH SIGINT"),
              "the command did not get every signal sent to pyprof-run: %s\n%s",
              r.out, r.err);
    cr_expect(r.exited && r.code == 7, "pyprof-run %s, the command exits 7",
              pp_describe(&r));
}

/* pyprof-merge's own options on a two-process profile (a parent and its
 * fork child): --pid, --top, -o, --group process, and its exit status
 * for damaged and for unreadable input. */
/* pyprof-run --report over a tree whose Python child outlives the
 * command (tests/py/linger.py), as multiprocessing's resource tracker does
 * by a few milliseconds: the report waits for it and shows every process
 * complete; a child that lives 10 s more (a daemon) does not hold
 * pyprof-run past its bound (3 s, pyprof-run(1) REPORT), and is named as
 * still running.  Builds before 2026-11-28 merged as soon as the command
 * ended and showed such a child incomplete. */
static int linger(const char *dir, const char *seconds, const char *how,
                  struct pp_result *r, const char *report, long *child)
{
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "-o", dir, "--report", report,
                           "--", "/usr/bin/python3", pp_script("linger.py"), seconds,
                           how, NULL };
    pp_run(r, argv, NULL, 60, NULL, NULL);
    *child = -1;
    if (strstr(r->out, "no real-time")) {
        printf("SKIP: linger.py %s: no real-time scheduling here (chrt -f)\n", how);
        return 0;
    }
    const char *c = strstr(r->out, "child ");
    cr_assert(c && sscanf(c, "child %ld", child) == 1 && *child > 0,
              "linger.py %s %s printed no child: %s\n%s", seconds, how, r->out, r->err);
    cr_expect(r->exited && r->code == 0, "pyprof-run -- linger.py %s %s: %s\n%s",
              seconds, how, pp_describe(r), r->err);
    return 1;
}

/* The report pyprof-run wrote, parsed (freed with the test). */
static struct pp_json *read_report(const char *report)
{
    char err[256];
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(report, "r");
    cr_assert(f, "no report %s", report);
    cr_assert(getdelim(&text, &len, 0, f) > 0, "empty report %s", report);
    fclose(f);
    struct pp_json *doc = pp_json_parse(text, err, sizeof err);
    cr_assert(doc, "bad JSON report %s: %s", report, err);
    free(text);
    return doc;
}

/* The command and its child in the report, each complete, the child's
 * work in the child. */
static void expect_whole_tree(const struct pp_json *doc, long child, const char *how)
{
    const struct pp_json *procs = pp_json_get(doc, "processes");
    cr_expect(procs && procs->n == 2, "linger.py %s: expected the command and its "
              "child in the report, found %zu processes", how, procs ? procs->n : 0);
    int seen = 0;
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *c = pp_json_get(&procs->items[i], "complete");
        long pid = (long)pp_json_num(&procs->items[i], "pid", -1);
        seen += pid == child;
        cr_expect(c && c->type == PP_JBOOL && c->num == 1, "linger.py %s: process "
                  "%ld is incomplete in the report", how, pid);
    }
    cr_expect(seen == 1, "linger.py %s: child %ld is not in the report", how, child);
    /* 0.3 s at 100 Hz: 30 ticks; a third of them is far from a child seen
     * only in part. */
    double n = pp_json_samples_in(doc, child, "linger_work");
    cr_expect(n >= 10, "linger.py %s: %.0f samples of linger_work in child %ld",
              how, n, child);
}

Test(options, pyprof_run_reports_the_tree_as_it_ended_within_a_bound, .timeout = 90)
{
    char report[4096];
    snprintf(report, sizeof report, "%s/report.json", pp_tmpdir());
    struct pp_result r;
    long child;
    linger(pp_tmpdir(), "0.05", "ready", &r, report, &child);
    struct pp_json *doc = read_report(report);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    cr_expect(procs && procs->n == 2, "expected the command and its child in the "
              "report, found %zu processes", procs ? procs->n : 0);
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *c = pp_json_get(&procs->items[i], "complete");
        cr_expect(c && c->type == PP_JBOOL && c->num == 1, "process %.0f is "
                  "incomplete in the report (the child ended 50 ms after the "
                  "command)", pp_json_num(&procs->items[i], "pid", -1));
    }
    cr_expect(!strstr(r.err, "still running"), "pyprof-run named a process still "
              "running: %s", r.err);

    linger(pp_tmpdir(), "10", "ready", &r, report, &child);
    kill((pid_t)child, SIGKILL);
    char want[64];
    snprintf(want, sizeof want, "process %ld (", child);
    cr_expect(strstr(r.err, want) && strstr(r.err, "still running"),
              "pyprof-run did not name the child still running:\n%s", r.err);
    cr_expect(r.seconds < 7, "pyprof-run took %.1f s to return beside a child "
              "that lives 10 s more", r.seconds);
}

/* A child alive when the command ends that has no file yet: a fork child
 * in its first milliseconds, an interpreter just started.  pyprof-run
 * waits for it as for one writing (pyprof-run(1), REPORT); builds before
 * 2026-12-01 reported without it, its file written after the report.
 * And a program that is not Python, left running, holds pyprof-run only
 * a moment. */
Test(options, pyprof_run_waits_for_children_without_a_file_yet, .timeout = 90)
{
    char report[4096];
    snprintf(report, sizeof report, "%s/report.json", pp_tmpdir());
    /* starved: the child (a fork child that execs) waits half a second
     * for a CPU, before its exec and its sampler's start, long past the
     * time a process is waited for without a sampler; that wait is not
     * its own time, and does not make the fork child a process of its
     * own either. */
    const char *hows[] = { "fork", "spawn", "starved" };
    for (size_t h = 0; h < sizeof hows / sizeof *hows; h++) {
        struct pp_result r;
        long child;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", pp_tmpdir(), hows[h]);
        if (!linger(dir, "0.3", hows[h], &r, report, &child))
            continue;
        if (!strcmp(hows[h], "starved"))
            cr_expect(r.seconds >= 0.5, "linger.py starved: pyprof-run returned "
                      "after %.2f s; the child cannot have been kept from its CPU "
                      "for 0.5 s", r.seconds);
        expect_whole_tree(read_report(report), child, hows[h]);
        cr_expect(!strstr(r.err, "still running"), "linger.py %s: pyprof-run named "
                  "a process still running: %s", hows[h], r.err);
    }

    struct pp_result r;
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "-o", pp_tmpdir(), "--",
                           "/bin/sh", "-c", "sleep 5 >/dev/null 2>&1 & echo $!", NULL };
    pp_run(&r, argv, NULL, 60, NULL, NULL);
    long sleeper = atol(r.out);
    if (sleeper > 0)
        kill((pid_t)sleeper, SIGKILL);
    cr_expect(r.exited && r.code == 0, "pyprof-run -- sh -c 'sleep 5 &': %s\n%s",
              pp_describe(&r), r.err);
    cr_expect(r.seconds < 1.5, "pyprof-run took %.2f s to return beside a sleep "
              "left running", r.seconds);
    cr_expect(!strstr(r.err, "still running"), "pyprof-run named sleep as still "
              "running: %s", r.err);
}

PP_TEST(options, pyprof_merge_selects_limits_groups_and_reports_damage, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run, r;
    const char *args[] = { pp_script("fork_warning.py"), "single", NULL };
    pp_run_python(&run, py, dir, 400, NULL, args);
    pp_expect_ok(py, &run, "fork_warning.py");
    const struct pp_json *all = pp_json_report(py, dir, NULL, 0);
    const struct pp_json *procs = pp_json_get(all, "processes");
    pp_assert(py, procs && procs->n == 2, "expected 2 processes");
    long child = -1;
    for (size_t i = 0; i < procs->n; i++)
        if (!strcmp(pp_json_str(&procs->items[i], "started_by"), "fork"))
            child = (long)pp_json_num(&procs->items[i], "pid", -1);
    pp_assert(py, child > 0, "no fork child in the report");

    /* --pid: only that process's stacks */
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", child);
    const char *sel[] = { "--pid", pid, NULL };
    pp_merge(&r, "json", sel, dir);
    const struct pp_json *one = pp_parse_json(py, &r);
    const struct pp_json *stacks = pp_json_get(one, "stacks");
    pp_assert(py, stacks && stacks->n > 0, "--pid %ld: no stacks", child);
    for (size_t i = 0; i < stacks->n; i++)
        pp_expect(py, (long)pp_json_num(&stacks->items[i], "pid", -1) == child,
                  "--pid %ld: a stack of process %.0f", child,
                  pp_json_num(&stacks->items[i], "pid", -1));
    pp_expect(py, pp_json_num(one, "totals.samples", -1) < pp_json_num(all, "totals.samples", -1),
              "--pid did not reduce the samples");

    /* --top 1 and -o FILE: one row per top table, written to the file */
    char out[4096];
    snprintf(out, sizeof out, "%s/report.txt", pp_tmpdir());
    const char *top[] = { "--top", "1", "-o", out, NULL };
    pp_merge(&r, "text", top, dir);
    pp_expect(py, r.exited && r.code == 0 && r.out_len == 0,
              "-o: %s, %zu bytes on stdout", pp_describe(&r), r.out_len);
    FILE *f = fopen(out, "r");
    pp_assert(py, f != NULL, "-o %s: no file", out);
    char line[4096];
    int rows = -1, tables = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Top functions by self, all processes", 36)) {
            rows = 0;
            tables++;
            continue;
        }
        if (rows >= 0 && line[0] == '\n')
            break;
        if (rows >= 0 && !strstr(line, "SELF"))
            rows++;
    }
    fclose(f);
    pp_expect(py, tables == 1 && rows == 1, "--top 1: %d rows in the overall "
              "table (%d tables)", rows, tables);

    /* --group process: every stack under a "process PID prog" root frame */
    const char *grp[] = { "--group", "process", NULL };
    pp_merge(&r, "collapsed", grp, dir);
    size_t lines = 0;
    for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        pp_expect(py, !strncmp(l, "process ", 8), "a line without its process "
                  "frame: %.100s", l);
        lines++;
    }
    pp_expect(py, lines > 0, "--group process printed nothing");

    /* damage: a cut copy beside the files -> exit 1 and the problem named;
     * nothing readable -> exit 2 */
    const char *zst = pp_find_file(dir, ".zst", 0);
    char cut[4096];
    snprintf(cut, sizeof cut, "%s/cut.zst", dir);
    FILE *in = fopen(zst, "rb"), *o = fopen(cut, "wb");
    pp_assert(py, in && o, "cannot copy %s", zst);
    char buf[100];
    size_t n = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, n, o);
    fclose(in);
    fclose(o);
    pp_merge(&r, "json", NULL, dir);
    pp_expect(py, r.exited && r.code == 1, "a damaged file among good ones: %s, "
              "expected exit 1", pp_describe(&r));
    pp_expect(py, strstr(r.out, "cut.zst") && strstr(r.out, "\"problems\""),
              "the damaged file is not named in the problems");
    const char *garbage = pp_tmpdir();
    char g[4096];
    snprintf(g, sizeof g, "%s/x.zst", garbage);
    FILE *gf = fopen(g, "w");
    fputs("not a profile\n", gf);
    fclose(gf);
    pp_merge(&r, "text", NULL, garbage);
    pp_expect(py, r.exited && r.code == 2, "nothing readable: %s, expected exit 2",
              pp_describe(&r));
}

/* Occurrences of needle in hay. */
static size_t count_in(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Every process of a tree reads the same PYPROF_* settings; a bad one is
 * said once for the tree: by its first process, or by pyprof-run's
 * summary when pyprof-run runs it (pyprof(7), ENVIRONMENT). */
PP_TEST(options, a_bad_setting_is_said_once_for_the_whole_tree, .timeout = 60)
{
    char code[600];
    snprintf(code, sizeof code, "import subprocess; subprocess.run(['sh', '-c', "
             "'%s -c pass; %s -c pass'], check=True)", py->path, py->path);
    const char *extra[] = { "PYPROF_HZ=abc", "PYPROF_LOG=1", NULL };
    struct pp_result r;
    const char *args[] = { "-c", code, NULL };
    pp_run_python(&r, py, pp_tmpdir(), 0, extra, args);
    pp_expect_ok(py, &r, "the tree under LD_PRELOAD");
    pp_expect(py, count_in(r.err, "PYPROF_HZ=abc") == 1, "LD_PRELOAD: PYPROF_HZ=abc "
              "said %zu times for a tree of 4 processes:\n%.2000s",
              count_in(r.err, "PYPROF_HZ=abc"), r.err);

    const char *run = getenv("PYPROF_TEST_RUN");
    const char *argv[] = { run, "-o", pp_tmpdir(), "--", py->path, "-c", code, NULL };
    const char *env[] = { "PYPROF_HZ=abc", "PYPROF_LOG=1", NULL };
    pp_run(&r, argv, env, 60, NULL, NULL);
    pp_expect(py, r.exited && r.code == 0, "pyprof-run: %s", pp_describe(&r));
    pp_expect(py, count_in(r.err, "PYPROF_HZ=abc") == 1 &&
              strstr(r.err, "pyprof: PYPROF_HZ=abc is not a number in [1, 200000]; "
                            "every process used 100"),
              "pyprof-run: PYPROF_HZ=abc said %zu times, or not in its summary:\n%.2000s",
              count_in(r.err, "PYPROF_HZ=abc"), r.err);
}

/* A label cut short says so: a command line longer than a label ends in
 * "…" in the text tree's COMMAND, the speedscope profiles' names and the
 * gecko process names (pyprof-merge(1), process labels); and a process
 * killed before its file ended shows "unknown (file incomplete)" in the
 * text tree's EXIT column with the PYTHON column after it, not pushed
 * aside. */
PP_TEST(options, a_long_command_line_is_cut_with_an_ellipsis_and_exit_fits_its_column,
        .timeout = 60)
{
    const char *dir = pp_tmpdir();
    static char longarg[301];
    memset(longarg, 'x', sizeof longarg - 1);
    struct pp_result run;
    const char *args[] = { pp_script("burn.py"), "0.4", longarg, NULL };
    pp_run_python(&run, py, dir, 100, NULL, args);
    pp_expect_ok(py, &run, "burn.py with a long argument");
    struct pp_result text, ss, gk;
    pp_merge(&text, "text", NULL, dir);
    pp_merge(&ss, "speedscope", NULL, dir);
    pp_merge(&gk, "gecko", NULL, dir);
    const char *cut = "xxxxxxxxxx\xe2\x80\xa6";
    const char *row = strstr(text.out, "burn.py 0.4 xxx");
    pp_expect(py, row && strstr(row, cut) && !strstr(text.out, longarg),
              "the text tree's COMMAND is not cut with an ellipsis:\n%.3000s", text.out);
    pp_expect(py, strstr(ss.out, cut) && !strstr(ss.out, longarg),
              "the speedscope names are not cut with an ellipsis");
    const char *pn = strstr(gk.out, "\"processName\": \"burn.py 0.4 xxx");
    pp_expect(py, pn && strstr(pn, cut) && !strstr(gk.out, longarg),
              "the gecko process name is not cut with an ellipsis");

    const char *dir2 = pp_tmpdir();
    const char *kill_args[] = { "-c", "import os, time\n"
                                "end = time.perf_counter() + 0.5\n"
                                "while time.perf_counter() < end: pass\n"
                                "os.kill(os.getpid(), 9)\n", NULL };
    pp_run_python(&run, py, dir2, 100, NULL, kill_args);
    pp_assert(py, run.signaled && run.sig == 9, "the process did not die of SIGKILL: %s",
              pp_describe(&run));
    pp_merge(&text, "text", NULL, dir2);
    char want[96];
    snprintf(want, sizeof want, "unknown (file incomplete) %.20s", py->version);
    pp_expect(py, strstr(text.out, want), "no \"%s\" in the text tree:\n%.3000s", want,
              text.out);
}
