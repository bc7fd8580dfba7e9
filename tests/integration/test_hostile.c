/*
 * test_hostile.c — hosts less kind than a test machine: an output
 * directory that fills up or cannot be written.  The program must run as
 * without pyprof, and the user must be told what was lost, without
 * PYPROF_LOG (pyprof-run(1), SUMMARY; pyprof(7), "Output").
 *
 * Each test mounts a small tmpfs in a mount namespace of its own
 * (unshare -m, as root), so that nothing of the host is touched; without
 * unshare or root it says so and skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

/* Whether a private mount namespace can be had here; says why not once. */
static int can_mount(const struct pp_python *py)
{
    struct pp_result r;
    const char *argv[] = { "unshare", "-m", "true", NULL };
    if (geteuid() != 0) {
        fprintf(stderr, "[%s] SKIP: not root: no private tmpfs to fill\n", py->label);
        return 0;
    }
    pp_run(&r, argv, NULL, 20, NULL, NULL);
    if (!r.exited || r.code != 0) {
        fprintf(stderr, "[%s] SKIP: unshare -m failed (%s): no private tmpfs\n",
                py->label, pp_describe(&r));
        return 0;
    }
    return 1;
}

/* N of pyprof-run's "pyprof: N process(es) WHAT:" line, 0 if none. */
static unsigned long said_count(const char *err, const char *what)
{
    for (const char *l = strstr(err, "pyprof: "); l; l = strstr(l + 1, "pyprof: ")) {
        unsigned long n;
        int at = 0;
        /* "1 process ...", "2 processes ...": %[es] would match no "es" in
         * the first, and scanf stops at a matching failure */
        if (sscanf(l, "pyprof: %lu process%n", &n, &at) != 1 || !at)
            continue;
        const char *rest = l + at;
        if (!strncmp(rest, "es", 2))
            rest += 2;
        if (*rest == ' ' && !strncmp(rest + 1, what, strlen(what)))
            return n;
    }
    return 0;
}

/* The whole file, NUL-terminated (malloc'ed), or NULL. */
static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (getdelim(&text, &len, 0, f) < 0) {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

/* pool_burn.py SECONDS under pyprof-run at hz, its output into OUT under
 * a tmpfs set up by the shell code mount_sh (with $M its mount point),
 * the text report into report; plain: the same program without pyprof. */
static void run_in_tmpfs(const struct pp_python *py, const char *mount_sh, int hz,
                         const char *secs, const char *report,
                         struct pp_result *pre, struct pp_result *plain)
{
    const char *mnt = pp_tmpdir();
    char rate[16], script[4096];
    snprintf(rate, sizeof rate, "%d", hz);
    snprintf(script, sizeof script,
             "M=%s; %s || exit 99; exec \"$0\" -r %s -o \"$M/out\" --report %s -- %s %s %s",
             mnt, mount_sh, rate, report, py->path, pp_script("pool_burn.py"), secs);
    const char *argv[] = { "unshare", "-m", "sh", "-c", script,
                           getenv("PYPROF_TEST_RUN"), NULL };
    pp_run(pre, argv, NULL, 90, NULL, NULL);
    const char *p[] = { py->path, pp_script("pool_burn.py"), "0.2", NULL };
    pp_run(plain, p, NULL, 60, NULL, NULL);
    pp_assert(py, pre->exited && pre->code != 99, "could not mount a tmpfs: %s", pre->err);
    pp_expect(py, pre->exited && pre->code == 0 && plain->exited && plain->code == 0 &&
                  !strcmp(pre->out, plain->out),
              "the program under pyprof-run: %s, stdout \"%s\"; plainly: %s, \"%s\"; "
              "stderr:\n%.3000s", pp_describe(pre), pre->out, pp_describe(plain),
              plain->out, pre->err);
}

/* A 32 KiB tmpfs: the four profiles of a 2 s tree at 2 kHz fill it.
 * Every process that stopped writing is named, with ENOSPC, when, and how
 * many ticks were lost after it, in pyprof-run's summary and in the text
 * report's problems. */
PP_TEST(hostile, a_full_disk_is_said_in_the_summary_and_the_report, .timeout = 120)
{
    if (!can_mount(py))
        return;
    char report[4096];
    snprintf(report, sizeof report, "%s/report.txt", pp_tmpdir());
    struct pp_result pre, plain;
    run_in_tmpfs(py, "mount -t tmpfs -o size=32k pyprof-test \"$M\"", 2000, "2.0",
                 report, &pre, &plain);
    unsigned long named = said_count(pre.err, "stopped writing their profile:");
    pp_assert(py, named >= 1, "pyprof-run did not say that writing stopped:\n%.3000s",
              pre.err);
    long lost_sum = 0, lines = 0;
    for (const char *l = strstr(pre.err, "No space left on device (ENOSPC) at "); l;
         l = strstr(l + 1, "No space left on device (ENOSPC) at ")) {
        const char *semi = strstr(l, "; ");
        long lost = -1;
        pp_expect(py, semi && sscanf(semi, "; %ld tick", &lost) == 1 && lost >= 0,
                  "a stopped line without its ticks lost: %.300s", l);
        lost_sum += lost > 0 ? lost : 0;
        lines++;
    }
    pp_expect(py, lines >= 1 && (unsigned long)lines == named && lost_sum > 0,
              "%lu processes stopped, %ld ENOSPC lines, %ld ticks lost in all:\n"
              "%.3000s", named, lines, lost_sum, pre.err);
    char *text = slurp(report);
    pp_assert(py, text, "no report in %s:\n%.2000s", report, pre.err);
    const char *problems = strstr(text, "\nProblems\n");
    pp_expect(py, problems && strstr(problems, "stopped writing ") &&
                  strstr(problems, "(ENOSPC) at ") && strstr(problems, "ticks lost after it"),
              "the report's problems do not say that writing stopped:\n%.3000s",
              problems ? problems : text);
    free(text);
}

/* A read-only output directory: no profile at all, and pyprof-run says
 * how many processes were not profiled and why, though their records
 * could not be written there either. */
PP_TEST(hostile, an_unwritable_output_directory_is_said_with_a_count_and_a_reason,
        .timeout = 120)
{
    if (!can_mount(py))
        return;
    char report[4096];
    snprintf(report, sizeof report, "%s/report.txt", pp_tmpdir());
    struct pp_result pre, plain;
    run_in_tmpfs(py, "mount -t tmpfs -o size=1m pyprof-test \"$M\" && mkdir \"$M/out\" && "
                     "mount -o remount,ro \"$M\"", 200, "0.2", report, &pre, &plain);
    unsigned long n = said_count(pre.err, "not profiled:");
    pp_expect(py, n == 4, "pyprof-run says %lu processes not profiled, the tree had 4:\n"
              "%.3000s", n, pre.err);
    /* The summary's lines ("pyprof:   pid N ..."), not the merge's. */
    size_t reasons = 0;
    for (const char *l = strstr(pre.err, "pyprof:   pid "); l;
         l = strstr(l + 1, "pyprof:   pid ")) {
        const char *eol = strchr(l, '\n');
        const char *why = strstr(l, ": Read-only file system");
        reasons += why && (!eol || why < eol);
    }
    pp_expect(py, reasons == 4, "%zu processes said with their reason (Read-only file "
              "system):\n%.3000s", reasons, pre.err);
}

/* Two hosts writing into one directory (a shared filesystem, or files
 * gathered afterwards), here two runs in PID and UTS namespaces of their
 * own: both processes have the same pid.  Every report tells the hosts apart, and
 * the merge can group and filter by host (pyprof(7), "Many hosts"). */
PP_TEST(hostile, processes_of_different_hosts_are_told_apart, .timeout = 120)
{
    if (!can_mount(py))
        return;
    const char *dir = pp_tmpdir();
    static const char *const hosts[] = { "pp-host-a", "pp-host-b" };
    for (int h = 0; h < 2; h++) {
        char script[4096];
        snprintf(script, sizeof script, "hostname %s && %s %s 0.4", hosts[h], py->path,
                 pp_script("burn.py"));
        const char *argv[] = { "unshare", "--pid", "--uts", "--fork", "--mount-proc",
                               "sh", "-c", script, NULL };
        struct pp_result r;
        pp_run(&r, argv, pp_profile_env(dir, 200, NULL), 60, NULL, NULL);
        pp_assert(py, r.exited && r.code == 0, "%s: %s\n%.2000s", hosts[h],
                  pp_describe(&r), r.err);
    }
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    pp_assert(py, pp_json_len(doc, "processes") == 2, "%zu processes, expected 2",
              pp_json_len(doc, "processes"));
    double pid = pp_json_num(doc, "processes.0.pid", -1);
    pp_assert(py, pid > 0 && pp_json_num(doc, "processes.1.pid", -1) == pid,
              "pids %g and %g: each PID namespace should give the same",
              pid, pp_json_num(doc, "processes.1.pid", -1));
    struct pp_result rep;
    pp_merge(&rep, "text", NULL, dir);
    pp_assert(py, rep.exited && rep.code == 0, "text: %s", pp_describe(&rep));
    pp_expect(py, strstr(rep.out, "  hosts           2 "), "no hosts line:\n%.3000s", rep.out);
    for (int h = 0; h < 2; h++) {
        char row[64];
        snprintf(row, sizeof row, "\n  %-14s  %-8.0f ", hosts[h], pid);
        pp_expect(py, strstr(rep.out, row), "no tree row for pid %g on %s:\n%.3000s",
                  pid, hosts[h], rep.out);
    }
    const char *group[] = { "--group", "host", NULL };
    pp_merge(&rep, "collapsed", group, dir);
    for (int h = 0; h < 2; h++) {
        char root[64];
        snprintf(root, sizeof root, "host %s;", hosts[h]);
        pp_expect(py, strstr(rep.out, root), "--group host: no root %s:\n%.2000s", root,
                  rep.out);
    }
    const char *only[] = { "--host", hosts[1], NULL };
    pp_merge(&rep, "json", only, dir);
    const struct pp_json *one = pp_parse_json(py, &rep);
    double want = -1;
    for (int i = 0; i < 2; i++) {
        char path[32];
        snprintf(path, sizeof path, "processes.%d", i);
        const struct pp_json *p = pp_json_get(doc, path);
        if (pp_json_str(p, "host") && !strcmp(pp_json_str(p, "host"), hosts[1]))
            want = pp_json_num(p, "samples", -1);
    }
    pp_expect(py, want > 0 && pp_json_num(one, "totals.samples", -1) == want,
              "--host %s: %g samples, that host's process has %g", hosts[1],
              pp_json_num(one, "totals.samples", -1), want);
    const char *nowhere[] = { "--host", "pp-no-such-host", NULL };
    pp_merge(&rep, "json", nowhere, dir);
    pp_expect(py, rep.exited && rep.code == 2 && strstr(rep.err, "pp-host-a"),
              "--host of no process: %s, stderr %s", pp_describe(&rep), rep.err);
    pp_merge(&rep, "html", NULL, dir);
    pp_expect(py, strstr(rep.out, "\"host\":\"pp-host-a\"") &&
                  strstr(rep.out, "\"host\":\"pp-host-b\""),
              "the HTML page's process data do not name the hosts");
}
