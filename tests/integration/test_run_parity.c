/*
 * test_run_parity.c — what pyprof leaves to the program: the signal
 * dispositions and mask pyprof-run was given reach the command unchanged
 * (pyprof-run(1), SIGNALS), and nothing of pyprof reaches the program's
 * stderr, while what could not be profiled is still said in pyprof-run's
 * summary and pyprof-merge's text report (pyprof(7), DIAGNOSTICS).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* Starts argv[1:] with SIGHUP, SIGINT and SIGQUIT ignored and SIGUSR1
 * blocked, everything else at the default, as nohup or a service manager
 * would. */
static const char launcher[] =
    "import os, signal, sys\n"
    "for s in (signal.SIGPIPE, signal.SIGXFSZ):\n"
    "    signal.signal(s, signal.SIG_DFL)\n"
    "for s in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n";

struct sender { const char *ready; int sent; };

/* Once the probe is ready, sends the started process (the probe itself,
 * or pyprof-run) the ignored signals, the blocked one, then SIGUSR2 and
 * SIGTERM, which the probe handles. */
static void send_signals(void *arg, pid_t pid)
{
    struct sender *s = arg;
    if (s->sent || access(s->ready, F_OK) != 0)
        return;
    const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGTERM };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        kill(pid, sigs[i]);
        usleep(50000);
    }
    s->sent = 1;
}

static void run_probe(struct pp_result *r, const struct pp_python *py, int under_run)
{
    char ready[4096];
    snprintf(ready, sizeof ready, "%s/ready", pp_tmpdir());
    const char *plain[] = { "/usr/bin/python3", "-c", launcher, py->path,
                            pp_script("sig_probe.py"), ready, NULL };
    const char *profiled[] = { "/usr/bin/python3", "-c", launcher,
                               getenv("PYPROF_TEST_RUN"), "-q", "-o", pp_tmpdir(), "--",
                               py->path, pp_script("sig_probe.py"), ready, NULL };
    struct sender s = { ready, 0 };
    pp_run(r, under_run ? profiled : plain, NULL, 40, send_signals, &s);
    pp_assert(py, s.sent, "the probe never became ready (%s): %s\n%s",
              under_run ? "under pyprof-run" : "plainly", r->out, r->err);
}

PP_TEST(run_parity, command_keeps_ignored_and_blocked_signals, .timeout = 90)
{
    struct pp_result plain, run;
    run_probe(&plain, py, 0);
    run_probe(&run, py, 1);
    pp_expect_ok(py, &plain, "sig_probe.py plainly");
    pp_expect_ok(py, &run, "sig_probe.py under pyprof-run");
    /* The launcher's choices as the plain command sees them, so that the
     * comparison below compares what it should. */
    pp_assert(py, strstr(plain.out, "SIGHUP ignored\nSIGINT ignored\nSIGQUIT ignored\n"
                                    "SIGUSR1 default\n") &&
                  strstr(plain.out, "mask SIGUSR1\n"),
              "the launcher did not set up the signals:\n%s", plain.out);
    pp_expect(py, strcmp(plain.out, run.out) == 0,
              "the command's signal state differs under pyprof-run.\n"
              "plainly:\n%s\nunder pyprof-run:\n%s", plain.out, run.out);
    /* Forwarding: the handled signals arrive; the blocked one waits,
     * pending, as if it had been sent to the command itself. */
    pp_expect(py, strstr(run.out, "got SIGTERM SIGUSR2\npending SIGUSR1\n"),
              "under pyprof-run the command did not get SIGUSR2 and SIGTERM, or "
              "SIGUSR1 is not pending:\n%s", run.out);
}

/* A server started in the background by a start script (SIGINT ignored,
 * as a non-interactive shell starts a background job) that installs its
 * own SIGINT handler, as uWSGI does: `kill -INT` of what the script
 * started, the server itself or pyprof-run, must run that handler; and
 * Ctrl-C at a terminal, which signals the whole foreground process group
 * (pyprof-run and the command), must reach the command once.  Builds
 * before 2026-11-28 caught in pyprof-run only the signals it had not been
 * given ignored, and the server never heard of the first. */
static const char background[] =
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n";

struct interrupter { const char *ready; int sent; };

static void interrupt_when_ready(void *arg, pid_t pid)
{
    struct interrupter *s = arg;
    if (s->sent || access(s->ready, F_OK) != 0)
        return;
    kill(pid, SIGINT);
    s->sent = 1;
}

Test(run_parity, a_servers_own_sigint_handler_gets_kill_int_and_one_ctrl_c,
     .timeout = 90)
{
    const char *py = "/usr/bin/python3";
    for (int under_run = 0; under_run < 2; under_run++) {
        char ready[4096];
        snprintf(ready, sizeof ready, "%s/ready", pp_tmpdir());
        const char *plain[] = { py, "-c", background, py,
                                pp_script("sigint_server.py"), ready, NULL };
        const char *profiled[] = { py, "-c", background, getenv("PYPROF_TEST_RUN"),
                                   "-q", "-o", pp_tmpdir(), "--", py,
                                   pp_script("sigint_server.py"), ready, NULL };
        struct interrupter s = { ready, 0 };
        struct pp_result r;
        pp_run(&r, under_run ? profiled : plain, NULL, 40, interrupt_when_ready, &s);
        cr_assert(s.sent, "the server never became ready: %s\n%s", r.out, r.err);
        cr_expect(r.exited && r.code == 0 && strstr(r.out, "sigint 1\n"),
                  "kill -INT of the started %s: the server printed \"%s\" and "
                  "ended with %s", under_run ? "pyprof-run" : "server", r.out,
                  pp_describe(&r));

        char tty_ready[4096];
        snprintf(tty_ready, sizeof tty_ready, "%s/ready", pp_tmpdir());
        const char *tty[] = { py, pp_script("ctrl_c.py"), tty_ready,
                              getenv("PYPROF_TEST_RUN"), "-q", "-o", pp_tmpdir(),
                              "--", py, pp_script("sigint_server.py"), tty_ready,
                              NULL };
        const char *tty_plain[] = { py, pp_script("ctrl_c.py"), tty_ready, py,
                                    pp_script("sigint_server.py"), tty_ready, NULL };
        struct pp_result t;
        pp_run(&t, under_run ? tty : tty_plain, NULL, 40, NULL, NULL);
        cr_expect(t.exited && t.code == 0 && strstr(t.out, "sigint 1\n") &&
                  strstr(t.out, "status 0\n"),
                  "Ctrl-C at a terminal%s: \"%s\"", under_run ? " under pyprof-run" : "",
                  t.out);
    }
}

/* Splits r->err into what the tree printed (everything before the first
 * line pyprof-run starts with "pyprof: ") and pyprof-run's summary. */
static const char *summary_of(const struct pp_result *r, size_t *tree_len)
{
    const char *s = r->err;
    while (*s && strncmp(s, "pyprof: ", 8) != 0) {
        const char *nl = strchr(s, '\n');
        s = nl ? nl + 1 : s + strlen(s);
    }
    *tree_len = (size_t)(s - r->err);
    return s;
}

PP_TEST(run_parity, nothing_on_stderr_and_unprofiled_are_named, .timeout = 120)
{
    if (geteuid() != 0 || access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr, "SKIP: %s: the tree runs a child as nobody with "
                        "/usr/bin/python3, which needs root and that interpreter\n",
                py->label);
        return;
    }
    const char *dir = pp_tmpdir(), *scratch = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("unprofiled_tree.py"), scratch, NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, dir, 0, 60);
    pp_expect_ok(py, &plain, "unprofiled_tree.py plainly");
    pp_expect_ok(py, &pre, "unprofiled_tree.py under the preload");
    pp_assert(py, strstr(plain.err, "nobody stderr") && strstr(plain.err, "no-timer stderr"),
              "the children did not run: %s", plain.err);
    pp_expect(py, plain.err_len == pre.err_len &&
                  memcmp(plain.err, pre.err, plain.err_len) == 0,
              "stderr differs under the preload.\nplainly:\n%s\nunder the preload:\n%s",
              plain.err, pre.err);
    /* Without pyprof-run only the process that may write into the
     * directory leaves a record there. */
    struct pp_result rep;
    pp_merge(&rep, "text", NULL, dir);
    pp_expect(py, strstr(rep.out, "1 process of the tree could not be profiled") &&
                  strstr(rep.out, "timer_create: Resource temporarily unavailable"),
              "the text report does not name the process without a timer:\n%s", rep.out);

    /* PYPROF_LOG asks for the messages: on stderr, or in PYPROF_LOG_FILE
     * with stderr left alone. */
    struct pp_result logged;
    const char *log1[] = { "PYPROF_LOG=1", NULL };
    pp_run(&logged, argv, pp_profile_env(pp_tmpdir(), 0, log1), 60, NULL, NULL);
    pp_expect(py, strstr(logged.err, "]: timer_create: Resource temporarily unavailable; "
                                     "this process is not profiled\n"),
              "PYPROF_LOG=1 does not show why a process is not profiled:\n%s", logged.err);
    char log_file[4096], log_env[4200];
    snprintf(log_file, sizeof log_file, "%s/log", scratch);
    snprintf(log_env, sizeof log_env, "PYPROF_LOG_FILE=%s", log_file);
    const char *logf[] = { log_env, NULL };
    pp_run(&logged, argv, pp_profile_env(pp_tmpdir(), 0, logf), 60, NULL, NULL);
    pp_expect(py, logged.err_len == plain.err_len &&
                  memcmp(plain.err, logged.err, plain.err_len) == 0,
              "stderr differs with PYPROF_LOG_FILE:\n%s", logged.err);
    char text[8192] = "";
    FILE *f = fopen(log_file, "r");
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
    }
    pp_expect(py, strstr(text, "timer_create: Resource temporarily unavailable"),
              "PYPROF_LOG_FILE does not get the messages:\n%s", text);

    /* Under pyprof-run all three are heard of. */
    const char *dir2 = pp_tmpdir();
    const char *rargv[] = { getenv("PYPROF_TEST_RUN"), "-o", dir2, "--", py->path,
                            pp_script("unprofiled_tree.py"), scratch, NULL };
    struct pp_result run;
    pp_run(&run, rargv, NULL, 60, NULL, NULL);
    pp_expect_ok(py, &run, "unprofiled_tree.py under pyprof-run");
    size_t tree_len;
    const char *summary = summary_of(&run, &tree_len);
    pp_expect(py, tree_len == plain.err_len && memcmp(plain.err, run.err, tree_len) == 0,
              "the tree's stderr differs under pyprof-run.\nplainly:\n%s\n"
              "under pyprof-run:\n%s", plain.err, run.err);
    const char *reasons[] = {
        "as uid 65534 (/usr/bin/python3 -c", "Permission denied",
        "a-file/out: Not a directory", "timer_create: Resource temporarily unavailable",
    };
    pp_expect(py, strstr(summary, "pyprof: 3 processes not profiled:"),
              "the summary does not count what was not profiled:\n%s", summary);
    pp_merge(&rep, "text", NULL, dir2);
    pp_expect(py, strstr(rep.out, "3 processes of the tree could not be profiled"),
              "the text report does not count what was not profiled:\n%s", rep.out);
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++) {
        pp_expect(py, strstr(summary, reasons[i]), "the summary lacks \"%s\":\n%s",
                  reasons[i], summary);
        pp_expect(py, strstr(rep.out, reasons[i]), "the text report lacks \"%s\":\n%s",
                  reasons[i], rep.out);
    }
}

struct forger { const char *scratch; int done, status; };

/* Once the tree has published its socket's name: a process outside the
 * tree, as nobody, sends a well-formed record, then lets the tree go on. */
static void forge_record(void *arg, pid_t pid)
{
    (void)pid;
    struct forger *f = arg;
    char path[4200], name[108] = "";
    snprintf(path, sizeof path, "%s/socket", f->scratch);
    FILE *in = f->done ? NULL : fopen(path, "r");
    if (!in)
        return;
    size_t n = fread(name, 1, sizeof name - 2, in);
    fclose(in);
    f->done = 1;
    pid_t c = fork();
    if (c == 0) {
        static const char rec[] = "pyprof-unprofiled 1\npid 4242\nuser 65534\nparent \n"
                                  "command forged-by-nobody\nreason forged\n";
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        memcpy(a.sun_path + 1, name, n);
        int fd = -1;
        if (setgid(65534) == 0 && setuid(65534) == 0)
            fd = socket(AF_UNIX, SOCK_DGRAM, 0);
        _exit(fd >= 0 && sendto(fd, rec, sizeof rec - 1, 0, (struct sockaddr *)&a,
                                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) ==
                                 (ssize_t)(sizeof rec - 1) ? 0 : 1);
    }
    if (c > 0)
        waitpid(c, &f->status, 0);
    snprintf(path, sizeof path, "%s/sent", f->scratch);
    FILE *sent = fopen(path, "w");
    cr_assert_not_null(sent, "cannot create %s", path);
    fclose(sent);
}

/* pyprof-run takes a record from a process of another uid only while it
 * is in the command's tree (pyprof-run(1), SUMMARY): a forged datagram
 * from outside is dropped, the nobody child's own still counts. */
PP_TEST(run_parity, records_from_outside_the_tree_are_dropped, .timeout = 90)
{
    if (geteuid() != 0 || access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr, "SKIP: %s: the forger and the tree's child run as nobody, "
                        "which needs root, and the child /usr/bin/python3\n", py->label);
        return;
    }
    const char *dir = pp_tmpdir(), *scratch = pp_tmpdir();
    const char *argv[] = { getenv("PYPROF_TEST_RUN"), "-o", dir, "--", py->path,
                           pp_script("forged_record_tree.py"), scratch, NULL };
    struct forger f = { scratch, 0, -1 };
    struct pp_result run;
    pp_run(&run, argv, NULL, 80, forge_record, &f);
    pp_expect_ok(py, &run, "forged_record_tree.py under pyprof-run");
    pp_assert(py, f.done && WIFEXITED(f.status) && WEXITSTATUS(f.status) == 0,
              "the forger did not send its datagram (status %d)", f.status);
    size_t tree_len;
    const char *summary = summary_of(&run, &tree_len);
    pp_expect(py, strstr(summary, "pyprof: 1 process not profiled:") &&
                  strstr(summary, "as uid 65534 (/usr/bin/python3 -c"),
              "the summary does not count the nobody child alone:\n%s", summary);
    pp_expect(py, !strstr(summary, "forged"), "the forged record was taken:\n%s", summary);
    pp_expect(py, pp_count_files(dir, ".unprofiled") == 1,
              "%zu records in the output directory, expected the child's alone",
              pp_count_files(dir, ".unprofiled"));
}

/* Builds tests/fixtures/NAME.c, a stand-in CPython that prints "RAN", runs
 * it profiled into dir and checks that it ran untouched, silently, with no
 * profile and one not-profiled record that pyprof-merge names with reason
 * (which includes the Python's version).  Returns the program's path. */
static const char *stand_in_unprofiled(const char *name, const char *ran,
                                       const char *dir, const char *reason)
{
    char src[4096];
    static char prog[4200];
    snprintf(src, sizeof src, "%s/../fixtures/%s.c", getenv("PYPROF_TEST_SCRIPTS"),
             name);
    snprintf(prog, sizeof prog, "%s/%s", pp_tmpdir(), name);
    const char *cc[] = { "cc", "-rdynamic", "-o", prog, src, NULL };
    struct pp_result r;
    pp_run(&r, cc, NULL, 60, NULL, NULL);
    cr_assert(r.exited && r.code == 0, "cc: %s\n%s", pp_describe(&r), r.err);

    const char *argv[] = { prog, NULL };
    pp_run(&r, argv, pp_profile_env(dir, 0, NULL), 30, NULL, NULL);
    cr_assert(r.exited && r.code == 0 && strcmp(r.out, ran) == 0,
              "%s: %s\n%s%s", prog, pp_describe(&r), r.out, r.err);
    cr_expect_str_empty(r.err, "something on the program's stderr");
    cr_expect_eq(pp_count_files(dir, ".zst"), 0);
    cr_assert_eq(pp_count_files(dir, ".unprofiled"), 1, "no not-profiled record");
    struct pp_result rep;
    pp_merge(&rep, "text", NULL, dir);
    char want[512];
    snprintf(want, sizeof want, "%s): %s\n", name, reason);
    cr_expect(rep.exited && rep.code == 2 && strstr(rep.err, want),
              "pyprof-merge %s does not name it:\n%s", pp_describe(&rep), rep.err);
    return prog;
}

/* A CPython of a version pyprof does not know (tests/fixtures/
 * future_python.c: the symbols of a 3.16.0, as the real detection reads
 * them) runs unprofiled and says so: silently on its stderr, with a
 * not-profiled record in the output directory, named in pyprof-run's
 * summary and pyprof-merge's text report; PYPROF_ONLY that leaves it out
 * leaves no record. */
Test(run_parity, an_unsupported_python_runs_unprofiled_and_is_named, .timeout = 60)
{
    const char *dir = pp_tmpdir();
    const char *prog = stand_in_unprofiled("future_python", "future python ran\n", dir,
                                           "Python 3.16.0: this version is not supported");
    const char *argv[] = { prog, NULL };
    struct pp_result r;

    const char *run_dir = pp_tmpdir();
    const char *rargv[] = { getenv("PYPROF_TEST_RUN"), "-o", run_dir, "--", prog, NULL };
    pp_run(&r, rargv, NULL, 30, NULL, NULL);
    size_t tree_len;
    const char *summary = summary_of(&r, &tree_len);
    cr_expect(r.exited && r.code == 0 && strstr(summary, "pyprof: 1 process not profiled:") &&
                  strstr(summary, "Python 3.16.0: this version is not supported"),
              "pyprof-run %s, its summary does not name it:\n%s", pp_describe(&r), r.err);

    const char *other = pp_tmpdir();
    const char *only[] = { "PYPROF_ONLY=*something-else*", NULL };
    pp_run(&r, argv, pp_profile_env(other, 0, only), 30, NULL, NULL);
    cr_expect(r.exited && r.code == 0 && pp_count_files(other, "") == 0,
              "PYPROF_ONLY leaves it out, but %s and %zu files", pp_describe(&r),
              pp_count_files(other, ""));
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* A tree in which nothing could be profiled still says why: pyprof-merge
 * finds no profile (exit 2) but names every process it has a record of,
 * and a damaged record by its file. */
Test(run_parity, pyprof_merge_names_the_unprofiled_when_nothing_was_profiled, .timeout = 30)
{
    const char *dir = pp_tmpdir();
    write_text(dir, "42.00000000000000aa.unprofiled",
               "pyprof-unprofiled 1\npid 42\nuser 65534\nparent \n"
               "command python3.9 app.py\nreason Python 3.9.1: this version is not supported\n");
    write_text(dir, "43.00000000000000bb.unprofiled", "pyprof-unprofiled 1\npid 43\n");
    struct pp_result r;
    pp_merge(&r, "text", NULL, dir);
    cr_expect(r.exited && r.code == 2, "pyprof-merge %s, expected exit 2", pp_describe(&r));
    cr_expect(strstr(r.err, "not profiled: pid 42 as uid 65534 (python3.9 app.py): "
                            "Python 3.9.1: this version is not supported\n"),
              "the record is not named:\n%s", r.err);
    cr_expect(strstr(r.err, "43.00000000000000bb.unprofiled: no pid or no reason\n"),
              "the damaged record is not named:\n%s", r.err);
}

/* A CPython whose memory does not fit its version's layout (tests/
 * fixtures/mismatched_python.c: a 3.12.0 whose first thread state names
 * another interpreter) is found out when the sampler first looks at it:
 * it runs unprofiled, with no profile but a not-profiled record that
 * pyprof-merge names. */
Test(run_parity, a_python_whose_layout_does_not_match_runs_unprofiled_and_is_named,
     .timeout = 60)
{
    stand_in_unprofiled("mismatched_python", "mismatched python ran\n", pp_tmpdir(),
                        "Python 3.12.0: thread state layout does not match");
}
