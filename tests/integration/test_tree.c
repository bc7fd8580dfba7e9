/*
 * test_tree.c — the process tree (pyprof(7), Following children): every
 * way of starting a Python child keeps it profiled and linked to its
 * parent, intermediaries that are not Python write nothing, exec keeps the
 * pid and starts a new file, and a pre-fork server is profiled master and
 * workers alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "pyprof/file_name.h"

#include "harness.h"
#include "json_report.h"

#define HZ 400

PP_TEST(tree, every_way_of_starting_a_python_child_profiles_it, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("spawns.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "spawns.py");
    pp_assert(py, strstr(run.out, "spawned"), "spawns.py did not finish:\n%s", run.out);

    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    const char *root = NULL;
    for (size_t i = 0; procs && i < procs->n; i++)
        if (!strcmp(pp_json_str(&procs->items[i], "started_by"), "root"))
            root = pp_json_str(&procs->items[i], "id");
    pp_assert(py, root, "no root process");
    const char *tags[] = { "env_empty", "env_replaced", "posix_spawn", "system",
                           "sh_c", "env_i", "preexec", "short" };
    for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
        char fn[64];
        snprintf(fn, sizeof fn, "kid_%s", tags[t]);
        long pid = pp_json_pid_running(doc, fn);
        pp_expect(py, pid > 0, "%s: the child's function is not in the report", fn);
        if (pid <= 0)
            continue;
        const struct pp_json *p = pp_json_process(doc, pid, NULL);
        const char *by = pp_json_str(p, "started_by"), *parent = pp_json_str(p, "parent");
        pp_expect(py, by && !strcmp(by, "spawn"), "%s: started_by %s", fn, by);
        pp_expect(py, parent && !strcmp(parent, root),
                  "%s: parent %s, expected the root %s", fn, parent, root);
        const struct pp_json *c = pp_json_get(p, "complete");
        pp_expect(py, c && c->num == 1, "%s: file incomplete", fn);
    }
    /* root + 8 Python children; sh, cat and env wrote nothing */
    pp_expect(py, pp_count_files(dir, "") == 9, "expected 9 files, found %zu",
              pp_count_files(dir, ""));
}

PP_TEST(tree, exec_ends_one_file_and_starts_another_with_the_same_pid,
        .timeout = 60)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("exec_a.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "exec_a.py");
    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    long a = pp_json_pid_running(doc, "work_a"), b = pp_json_pid_running(doc, "work_b");
    pp_assert(py, a > 0 && a == b, "work_a in pid %ld, work_b in pid %ld", a, b);
    const struct pp_json *pa = pp_json_process(doc, a, "root"),
                         *pb = pp_json_process(doc, a, "exec");
    pp_assert(py, pa && pb, "expected a root image and an exec image of pid %ld", a);
    pp_expect(py, pp_json_get(pa, "exit.exec") != NULL, "the first image did not end by exec");
    pp_expect(py, pp_json_num(pb, "exit.code", -1) == 0, "the second image did not exit 0");
    pp_expect(py, !strcmp(pp_json_str(pb, "parent"), pp_json_str(pa, "id")),
              "the exec image does not name the first as parent");
    pp_expect(py, pp_json_get(pa, "complete")->num == 1 &&
                  pp_json_get(pb, "complete")->num == 1, "a file is incomplete");
    pp_expect(py, pp_count_files(dir, ".zst") == 2, "expected 2 files");
}

/* Non-Python programs under the preload: same bytes out, same status. */
Test(tree, non_python_commands_are_untouched, .timeout = 60)
{
    const char *dir = pp_tmpdir();
    char input[4096];
    snprintf(input, sizeof input, "%s/in.txt", pp_tmpdir());
    FILE *f = fopen(input, "w");
    for (int i = 0; i < 100000; i++)
        fprintf(f, "%08x line\n", (unsigned)(i * 2654435761u));
    fclose(f);
    const char *cmds[][5] = {
        { "ls", "-la", "/usr/bin", NULL },
        { "sh", "-c", "echo out; echo err >&2; exit 7", NULL },
        { "sort", input, NULL },
    };
    for (size_t i = 0; i < 3; i++) {
        struct pp_result plain, pre;
        pp_run_twice(&plain, &pre, cmds[i], dir, 0, 30);
        cr_expect(plain.out_len == pre.out_len &&
                  !memcmp(plain.out, pre.out, plain.out_len),
                  "%s: stdout differs under the preload", cmds[i][0]);
        cr_expect(!strcmp(plain.err, pre.err), "%s: stderr differs", cmds[i][0]);
        cr_expect(plain.status == pre.status, "%s: %s vs %s", cmds[i][0],
                  pp_describe(&pre), pp_describe(&plain));
    }
    cr_expect(pp_count_files(dir, "") == 0, "non-Python programs wrote files");
}

/* gunicorn from Debian (python3-gunicorn, run by /usr/bin/python3): master
 * and 3 workers under pyprof-run, a bounded number of requests on
 * 127.0.0.1, then SIGTERM to pyprof-run. */
Test(tree, a_gunicorn_master_and_its_workers_are_profiled, .timeout = 120)
{
    if (access("/usr/lib/python3/dist-packages/gunicorn", F_OK) != 0) {
        fprintf(stderr, "SKIP: gunicorn test: python3-gunicorn is not installed\n");
        return;
    }
    const char *dir = pp_tmpdir();
    char script[8192];
    int port = 20000 + (int)(getpid() % 20000);
    snprintf(script, sizeof script,
             "%s -q -o %s -r %d -- /usr/bin/python3 -m gunicorn -w 3 -b 127.0.0.1:%d "
             "--chdir %s gunicorn_app:app 2>/dev/null & P=$!; "
             "/usr/bin/python3 %s %d 60; kill -TERM $P; wait $P; echo status=$?",
             getenv("PYPROF_TEST_RUN"), dir, HZ, port, getenv("PYPROF_TEST_SCRIPTS"),
             pp_script("http_client.py"), port);
    const char *argv[] = { "sh", "-c", script, NULL };
    struct pp_result run;
    pp_run(&run, argv, NULL, 90, NULL, NULL);
    cr_assert(strstr(run.out, "ok 60"), "requests failed:\n%s\n%s", run.out, run.err);
    cr_assert(strstr(run.out, "status=0"), "pyprof-run did not exit with gunicorn's "
              "status 0:\n%s", run.out);

    struct pp_result rep;
    pp_merge(&rep, "json", NULL, dir);
    cr_assert(rep.exited && rep.code == 0, "pyprof-merge: %s\n%s", pp_describe(&rep), rep.err);
    char err[256];
    struct pp_json *doc = pp_json_parse(rep.out, err, sizeof err);
    cr_assert_not_null(doc, "bad JSON: %s", err);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    int master = 0, incomplete = 0;
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        if (pp_json_get(p, "complete")->num != 1)
            incomplete++;
        master += !strcmp(pp_json_str(p, "started_by"), "root");
    }
    cr_expect(master == 1, "expected the master as the one root, found %d", master);
    /* Which worker serves a request is gunicorn's choice (one often takes
     * most of them): each worker that served 5 or more, by the pids the
     * app answered with (50 ms of handle_request, about 20 ticks at
     * 400 Hz), must be a fork child of the master in the report with
     * handle_request on its stacks. */
    int judged = 0;
    const struct pp_json *stacks = pp_json_get(doc, "stacks");
    for (const char *at = run.out; (at = strstr(at, "served ")) != NULL; at++) {
        long pid, count;
        if (sscanf(at, "served %ld %ld", &pid, &count) != 2 || count < 5)
            continue;
        judged++;
        const struct pp_json *p = pp_json_process(doc, pid, NULL);
        cr_expect(p && !strcmp(pp_json_str(p, "started_by"), "fork"),
                  "worker %ld (served %ld requests) is not in the report as a fork "
                  "child", pid, count);
        int hit = 0;
        for (size_t k = 0; stacks && k < stacks->n && !hit; k++) {
            if ((long)pp_json_num(&stacks->items[k], "pid", -1) != pid)
                continue;
            const struct pp_json *fr = pp_json_get(&stacks->items[k], "frames");
            for (size_t f = 0; fr && f < fr->n && !hit; f++)
                hit = !strcmp(pp_json_str(&fr->items[f], "name"), "handle_request");
        }
        cr_expect(hit, "worker %ld served %ld requests, and handle_request is not on "
                  "its stacks", pid, count);
    }
    cr_expect(judged >= 1, "no worker served 5 requests by the app's answers:\n%s",
              run.out);
    /* With setproctitle (python3-setproctitle) gunicorn titles its
     * processes, and the report labels them so (pyprof-merge(1)). */
    if (access("/usr/lib/python3/dist-packages/setproctitle", F_OK) == 0) {
        int titled_master = 0, titled_workers = 0;
        for (size_t i = 0; procs && i < procs->n; i++) {
            const char *t = pp_json_str(&procs->items[i], "title");
            titled_master += t && !strncmp(t, "gunicorn: master [", 18);
            titled_workers += t && !strncmp(t, "gunicorn: worker [", 18);
        }
        cr_expect(titled_master == 1 && titled_workers == 3, "titles: %d masters and "
                  "%d workers named as gunicorn names them (expected 1 and 3)",
                  titled_master, titled_workers);
    } else {
        fprintf(stderr, "SKIP: gunicorn's titles: python3-setproctitle is not "
                        "installed\n");
    }
    cr_expect(incomplete == 0, "%d files incomplete", incomplete);
}

/* os.system() from four threads at once: SIGINT and SIGQUIT are ignored
 * while any call waits, and restored when the last one returns, as glibc
 * does; the sh children are not Python and write nothing. */
/* The pids in the names of the files created in the directory watched by
 * fd (IN_CREATE) since the watch began, up to cap of them; how many. */
static size_t created_pids(int fd, long *pids, size_t cap)
{
    size_t n = 0;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t len;
    while ((len = read(fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            struct pp_file_name f;
            if (e->len && pp_file_name_parse(e->name, &f) && n < cap)
                pids[n++] = f.pid;
            p += sizeof *e + e->len;
        }
    }
    return n;
}

/* A fork child whose execs fail as a PATH search's do: its sampler is
 * only held across each exec before it created a file (pyprof(7),
 * Following children), so after the misses it either execs a program
 * that is profiled as the parent's spawn, leaving no file of its own, or
 * goes on as itself, sampled as before.  A child sampled before its
 * misses (burn_exec: 8 ms, about three ticks) has begun its file but not
 * created it, and creates none at all: the directory is watched. */
PP_TEST(tree, a_fork_child_that_misses_execs_is_profiled_as_what_it_becomes,
        .timeout = 90)
{
    static const char *const modes[] = { "exec", "stay", "burn_exec" };
    for (int m = 0; m < 3; m++) {
        const char *dir = pp_tmpdir();
        struct pp_result run;
        const char *args[] = { pp_script("exec_misses.py"), modes[m], NULL };
        int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        pp_assert(py, watch >= 0 && inotify_add_watch(watch, dir, IN_CREATE) >= 0,
                  "cannot watch %s: %s", dir, strerror(errno));
        pp_run_python(&run, py, dir, HZ, NULL, args);
        long made[16];
        size_t nmade = created_pids(watch, made, 16);
        close(watch);
        pp_expect_ok(py, &run, "exec_misses.py");
        long code = -1;
        long child = pp_child_ended(py, &run, "exec_misses.py", modes[m], &code);
        pp_expect(py, code == 0, "%s: the child exited %ld", modes[m], code);
        const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
        const struct pp_json *root = pp_json_process(doc, 0, "root");
        pp_assert(py, root, "%s: no root process", modes[m]);
        const char *root_id = pp_json_str(root, "id");
        if (m != 1) {
            long pid = pp_json_pid_running(doc, "kid_after_misses");
            pp_expect(py, pid == child, "exec: kid_after_misses ran in %ld, the "
                      "child was %ld", pid, child);
            const struct pp_json *p = pp_json_process(doc, child, "spawn");
            const struct pp_json *any = pp_json_process(doc, child, NULL);
            pp_assert(py, p, "exec: the exec'd program is not a spawn (started by %s)",
                      any ? pp_json_str(any, "started_by") : "nothing: no file");
            const char *parent = pp_json_str(p, "parent");
            pp_expect(py, parent && !strcmp(parent, root_id),
                      "exec: parent %s, expected the root %s", parent, root_id);
            pp_expect(py, pp_json_process(doc, child, "fork") == NULL,
                      "exec: the fork child that exec'd left a file of its own");
            pp_expect(py, pp_count_files(dir, ".zst") == 2,
                      "exec: expected 2 files (root, kid), found %zu",
                      pp_count_files(dir, ".zst"));
            /* Root and kid, each once: the fork child (whose pid the kid
             * shares) created one file, the kid's. */
            size_t of_child = 0;
            for (size_t i = 0; i < nmade; i++)
                of_child += made[i] == child;
            pp_expect(py, nmade == 2 && of_child == 1,
                      "%s: %zu files were created, %zu of them by the child's "
                      "pid (expected 2 and 1: the fork child creates none)",
                      modes[m], nmade, of_child);
            if (m == 2) {
                /* It was sampled: the exec'd kid names the root as its
                 * parent all the same, and the burn is nowhere. */
                pp_expect(py, pp_json_samples_in(doc, child, "stay_burn") == 0,
                          "burn_exec: the dropped fork child's stay_burn is in "
                          "the report");
            }
        } else {
            /* 0.3 s at 400 Hz */
            pp_expect_fork_child_burned(py, doc, child, "stay_burn", 40, 0.7,
                                        "stay (missed every exec)");
        }
    }
}

PP_TEST(tree, concurrent_system_calls_leave_sigint_and_sigquit_as_they_were,
        .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("system_threads.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "system_threads.py");
    char before[32] = "", after[32] = "";
    pp_assert(py, sscanf(run.out, "sigign before %31s after %31s", before, after) == 2,
              "system_threads.py printed: %s", run.out);
    pp_expect(py, strcmp(before, after) == 0,
              "ignored signals were %s before the system() calls and %s after",
              before, after);
    pp_expect(py, pp_count_files(dir, ".zst") == 1, "expected only the Python "
              "process's file, found %zu", pp_count_files(dir, ".zst"));
}

/* libc's popen() (C programs; Python's os.popen uses subprocess): the
 * Python child is profiled, and reading, writing, the exit status and the
 * closing of earlier streams in later children are as with glibc's own. */
PP_TEST(tree, libc_popen_profiles_its_child_and_behaves_as_glibcs, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("libc_popen.py"), pp_script("kid.py"), NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, dir, HZ, 60);
    pp_expect_ok(py, &plain, "libc_popen.py without the preload");
    pp_expect_ok(py, &pre, "libc_popen.py under the preload");
    pp_assert(py, strstr(plain.out, "status 3") && strstr(plain.out, "closed"),
              "unexpected output without the preload:\n%s", plain.out);
    pp_expect(py, strcmp(plain.out, pre.out) == 0, "output differs:\nwithout:\n%s\nwith:\n%s",
              plain.out, pre.out);
    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    long pid = pp_json_pid_running(doc, "kid_popen");
    pp_expect(py, pid > 0, "the popen()ed Python child was not profiled");
    const struct pp_json *p = pid > 0 ? pp_json_process(doc, pid, NULL) : NULL;
    const char *by = p ? pp_json_str(p, "started_by") : NULL;
    pp_expect(py, by && !strcmp(by, "spawn"), "kid_popen: started_by %s", by ? by : "?");
}
