/*
 * test_lifecycle.c — fork children, the ways a process ends, and
 * multiprocessing under every start method (pyprof(7), Fork and Ending
 * cleanly): their samples are in the merged report, their files are
 * complete where the process could be told it was ending, and each ended
 * as it would have.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 400
/* These programs run more CPU-bound processes than a 2-core machine has
 * cores: what is tested is that the samples taken are kept (against the
 * ticks each process recorded), with loose floors on the rate achieved. */

/* "name pid exit N" / "name pid signal N" lines printed by fork_exits.py */
static long child_pid(const struct pp_python *py, const char *out,
                      const char *name, const char *how, int value)
{
    char want[64];
    const char *p = strstr(out, name);
    pp_assert(py, p != NULL, "fork_exits.py did not report %s:\n%s", name, out);
    long pid = 0;
    char got[16];
    int v = -1;
    pp_assert(py, sscanf(p + strlen(name), " %ld %15s %d", &pid, got, &v) == 3,
              "cannot parse the line of %s", name);
    snprintf(want, sizeof want, "%s %d", how, value);
    char seen[64];
    snprintf(seen, sizeof seen, "%s %d", got, v);
    pp_assert(py, strcmp(want, seen) == 0,
              "%s ended with %s under the preload; without it, it ends with %s",
              name, seen, want);
    return pid;
}

/* The pid on the line of `name` ("name pid ..."), or -1. */
static long child_pid_any(const char *out, const char *name)
{
    const char *p = strstr(out, name);
    long pid = -1;
    if (!p || sscanf(p + strlen(name), " %ld", &pid) != 1)
        return -1;
    return pid;
}

PP_TEST(lifecycle, fork_children_keep_their_samples_however_they_end,
        .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("fork_exits.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "fork_exits.py");
    pp_assert(py, strstr(run.err, "RuntimeError: uncaught in a fork child") != NULL,
              "the uncaught exception's traceback is missing:\n%s", run.err);

    long p_exit = child_pid(py, run.out, "work_exit", "exit", 3);
    long p_raise = child_pid(py, run.out, "work_raise", "exit", 1);
    long p_term = child_pid(py, run.out, "work_term", "signal", 15);
    long p_kill = child_pid(py, run.out, "work_kill", "signal", 9);
    pp_assert(py, pp_count_files(dir, ".zst") == 5,
              "expected 5 files (parent + 4 fork children), found %zu",
              pp_count_files(dir, ".zst"));

    /* SIGKILL leaves one file incomplete: pyprof-merge says so (exit 1). */
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 1);
    struct { long pid; const char *fn; double min; const char *exit_key;
             int exit_val; int complete; } want[] = {
        { p_exit, "work_exit", 0.6 * HZ * 0.1, "code", 3, 1 },
        { p_raise, "work_raise", 0.6 * HZ * 0.1, "code", 1, 1 },
        { p_term, "work_term", 1.0 * HZ * 0.1, "signal", 15, 1 },
        /* everything up to the last flush (PYPROF_FLUSH_MS = 200) */
        { p_kill, "work_kill", (1.5 - 0.25) * HZ * 0.1, NULL, 0, 0 },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const struct pp_json *p = pp_json_process(doc, want[i].pid, NULL);
        pp_assert(py, p != NULL, "no process %ld (%s) in the report", want[i].pid,
                  want[i].fn);
        double n = pp_json_samples_in(doc, want[i].pid, want[i].fn);
        double ticks = pp_json_num(p, "counters.ticks", 0);
        pp_expect(py, n >= want[i].min, "%s: %.0f samples, expected at least %.0f",
                  want[i].fn, n, want[i].min);
        double kept = pp_json_num(p, "samples", 0);
        pp_measure(py, "child's work against its floor", n / want[i].min, ">=", 1);
        pp_measure(py, "samples a tick", ticks > 0 ? kept / ticks : 0, ">=", 0.8);
        pp_measure(py, "samples beyond the ticks", kept - ticks, "<=", 5);
        pp_expect(py, kept >= 0.8 * ticks, "%s: %.0f samples of %.0f ticks recorded",
                  want[i].fn, kept, ticks);
        const char *by = pp_json_str(p, "started_by");
        pp_expect(py, by && strcmp(by, "fork") == 0, "%s: started_by %s, expected fork",
                  want[i].fn, by ? by : "(none)");
        const struct pp_json *c = pp_json_get(p, "complete");
        pp_expect(py, c && c->type == PP_JBOOL && (int)c->num == want[i].complete,
                  "%s: complete should be %s", want[i].fn,
                  want[i].complete ? "true" : "false");
        if (want[i].exit_key) {
            char path[32];
            snprintf(path, sizeof path, "exit.%s", want[i].exit_key);
            pp_expect(py, pp_json_num(p, path, -1) == want[i].exit_val,
                      "%s: exit.%s is %.0f, expected %d", want[i].fn,
                      want[i].exit_key, pp_json_num(p, path, -1), want[i].exit_val);
        }
        /* The parent's unwritten samples are not duplicated into the child:
         * a child with one Python thread has at most one sample per tick of
         * its own (and a few more at most where SIGKILL cut the file between
         * a flush's samples and its counters), while the parent's unwritten
         * samples would be up to a flush interval's worth.  (Counting its
         * samples in main() outside its work, as this test did, also counts
         * the child waiting for a CPU in its after-fork hooks: four children
         * burn CPU on two cores here.) */
        pp_expect(py, kept <= ticks + 5,
                  "%s: %.0f samples in %.0f ticks: the child's file holds samples "
                  "of the parent", want[i].fn, kept, ticks);
    }
}

/* A fork child sampled for 15 ms that then ends, by _exit or through the
 * interpreter's end: its file is begun at its first tick but created
 * only as it ends, within the 20 ms in which an exec would have dropped
 * it (pyprof(7), Following children), and holds every tick it served. */
PP_TEST(lifecycle, a_fork_child_that_ends_in_its_first_20_ms_keeps_its_samples,
        .timeout = 90)
{
    static const char *const hows[] = { "_exit", "exit" };
    for (int h = 0; h < 2; h++) {
        const char *dir = pp_tmpdir();
        struct pp_result run;
        const char *args[] = { pp_script("short_fork.py"), hows[h], NULL };
        pp_run_python(&run, py, dir, 2000, NULL, args);
        pp_expect_ok(py, &run, "short_fork.py");
        long code = -1;
        long child = pp_child_ended(py, &run, "short_fork.py", hows[h], &code);
        pp_expect(py, code == 4, "%s: the child exited %ld, not 4", hows[h], code);
        pp_assert(py, pp_count_files(dir, ".zst") == 2,
                  "%s: expected 2 files (parent, child), found %zu", hows[h],
                  pp_count_files(dir, ".zst"));
        const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
        const struct pp_json *p = pp_json_process(doc, child, "fork");
        pp_expect(py, p && pp_json_num(p, "exit.code", -1) == 4,
                  "%s: exit.code %.0f", hows[h], p ? pp_json_num(p, "exit.code", -1) : -1);
        /* 15 ms at 2 kHz: 30 ticks on a quiet machine, 1 at 400 Hz beside
         * two CPU hogs once; some of them in the child's own after-fork
         * code and its exit. */
        pp_expect_fork_child_burned(py, doc, child, "short_burn", 3, 0.5, hows[h]);
    }
}

PP_TEST(lifecycle, pool_terminate_keeps_every_busy_workers_samples,
        .timeout = 90)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("pool_terminate.py"), NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "pool_terminate.py");
    pp_assert(py, strstr(run.out, "terminated") != NULL, "output changed:\n%s", run.out);

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    int busy = 0;
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        long pid = (long)pp_json_num(p, "pid", -1);
        double n = pp_json_samples_in(doc, pid, "busy_worker");
        if (n <= 0)
            continue;
        busy++;
        double ticks = pp_json_num(p, "counters.ticks", 0),
               kept = pp_json_num(p, "samples", 0);
        pp_measure(py, "busy_worker samples", n, ">=", 1.0 * HZ * 0.1);
        pp_measure(py, "samples a tick", ticks > 0 ? kept / ticks : 0, ">=", 0.8);
        pp_expect(py, n >= 1.0 * HZ * 0.1, "worker %ld: busy_worker has %.0f samples",
                  pid, n);
        pp_expect(py, kept >= 0.8 * ticks, "worker %ld: %.0f samples of %.0f ticks "
                  "recorded", pid, kept, ticks);
        pp_expect(py, pp_json_num(p, "exit.signal", -1) == 15,
                  "worker %ld did not end by SIGTERM in the report", pid);
        const struct pp_json *c = pp_json_get(p, "complete");
        pp_expect(py, c && c->type == PP_JBOOL && c->num == 1,
                  "worker %ld: file not complete", pid);
    }
    pp_assert(py, busy == 3, "busy_worker seen in %d workers, expected 3", busy);
}

static void start_method(const struct pp_python *py, const char *method)
{
    const char *dir = pp_tmpdir();
    struct pp_result plain, run;
    const char *argv[] = { py->path, pp_script("mp_sum.py"), method, NULL };
    pp_run(&plain, argv, NULL, 60, NULL, NULL);
    const char *args[] = { pp_script("mp_sum.py"), method, NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "mp_sum.py");
    pp_assert(py, strcmp(plain.out, run.out) == 0 && plain.code == run.code,
              "%s: output or status changed under the preload:\n%s\nvs\n%s",
              method, run.out, plain.out);

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    const char *root_id = NULL;
    int workers = 0, parent_seen = 0;
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        const char *by = pp_json_str(p, "started_by");
        const struct pp_json *c = pp_json_get(p, "complete");
        pp_expect(py, c && c->type == PP_JBOOL && c->num == 1,
                  "%s: process %.0f's file is not complete", method,
                  pp_json_num(p, "pid", -1));
        if (by && strcmp(by, "root") == 0) {
            root_id = pp_json_str(p, "id");
            parent_seen = pp_json_samples_in(doc, (long)pp_json_num(p, "pid", -1),
                                     "sum_worker") > 0;
        } else if (pp_json_samples_in(doc, (long)pp_json_num(p, "pid", -1), "sum_worker") > 0) {
            workers++;
        }
    }
    pp_assert(py, root_id != NULL, "%s: no root process in the report", method);
    pp_expect(py, parent_seen, "%s: sum_worker not seen in the parent", method);
    pp_measure(py, "workers with sum_worker", workers, ">=", 3);
    pp_expect(py, workers >= 3, "%s: sum_worker seen in %d workers, expected 3",
              method, workers);
    /* Every other process descends from a process in the report. */
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        const char *parent = pp_json_str(p, "parent");
        const char *by = pp_json_str(p, "started_by");
        if (by && strcmp(by, "root") == 0)
            continue;
        pp_expect(py, parent && pp_json_find(procs, "id", parent),
                  "%s: process %.0f (%s) has no parent in the report", method,
                  pp_json_num(p, "pid", -1), by ? by : "?");
    }
}

PP_TEST(lifecycle, multiprocessing_fork_workers_are_profiled, .timeout = 90)
{
    start_method(py, "fork");
}

PP_TEST(lifecycle, multiprocessing_forkserver_workers_are_profiled, .timeout = 90)
{
    start_method(py, "forkserver");
}

PP_TEST(lifecycle, multiprocessing_spawn_workers_are_profiled, .timeout = 90)
{
    start_method(py, "spawn");
}

/* CPython >= 3.12 warns when os.fork() runs in a multi-threaded process.
 * The sampler thread must not make a single-threaded program warn, and a
 * program with threads of its own must still be warned, exactly as
 * without the preload (preload/hooks/stat_filter.c). */
static void fork_warning(const struct pp_python *py, const char *mode)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("fork_warning.py"), mode, NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, dir, HZ, 60);
    pp_expect_ok(py, &plain, "fork_warning.py without the preload");
    pp_expect_ok(py, &pre, "fork_warning.py under the preload");
    int warned_plain = strstr(plain.err, "multi-threaded") != NULL;
    int warned_pre = strstr(pre.err, "multi-threaded") != NULL;
    pp_expect(py, warned_plain == (py->minor >= 12 && !strcmp(mode, "threads")),
              "%s: without the preload the warning %s shown:\n%s", mode,
              warned_plain ? "was" : "was not", plain.err);
    pp_expect(py, warned_pre == warned_plain,
              "%s: the fork warning was %s under the preload and %s without:\n"
              "under the preload:\n%s\nwithout:\n%s", mode,
              warned_pre ? "shown" : "not shown",
              warned_plain ? "shown" : "not shown", pre.err, plain.err);
    /* and both processes were profiled */
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    pp_expect(py, procs && procs->n == 2, "%s: expected parent and child in the "
              "report, found %zu processes", mode, procs ? procs->n : 0);
    for (size_t i = 0; procs && i < procs->n; i++) {
        long pid = (long)pp_json_num(&procs->items[i], "pid", -1);
        pp_expect(py, pp_json_samples_in(doc, pid, "spin") > 0,
                  "%s: spin not sampled in process %ld", mode, pid);
    }
}

PP_TEST(lifecycle, os_fork_warns_about_threads_only_as_it_would_unprofiled,
        .timeout = 90)
{
    fork_warning(py, "single");
    fork_warning(py, "threads");
}

/* tests/py/cfork.py MODE: a process forked from C without
 * PyOS_AfterFork_Child (uWSGI's workers), by the main thread or by a
 * second one.  The child's thread state still names the thread of the
 * parent that forked; the child's one thread is that thread, and its
 * samples must be where it works (pyprof(7), Fork).  A build that took
 * the parent's id for a thread that has ended recorded none. */
static void forked_from_c(const struct pp_python *py, const char *mode)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("cfork.py"), mode, "1", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "cfork.py");
    long pid = 0;
    int code = -1;
    const char *line = strstr(run.out, "child ");
    pp_assert(py, line && sscanf(line, "child %ld exit %d", &pid, &code) == 2,
              "cfork.py %s printed no child line: %s", mode, run.out);
    pp_expect(py, code == 0, "cfork.py %s: the child exited %d", mode, code);
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *p = pp_json_process(doc, pid, "fork");
    pp_assert(py, p != NULL, "cfork.py %s: no process %ld started by fork in "
              "the report", mode, pid);
    double ticks = pp_json_num(p, "counters.ticks", 0);
    double n = pp_json_samples_in(doc, pid, "child_work");
    double parent = pp_json_samples_in(doc, run.pid, "parent_work");
    /* The child works for all but its first and last moments: most of
     * the ticks it served sample child_work, and it served a good part
     * of the 1 s asked even on a loaded machine. */
    pp_measure(py, "child_work samples a tick", ticks > 0 ? n / ticks : 0, ">=", 0.7);
    pp_measure(py, "parent_work samples", parent, ">=", 0.3 * HZ);
    pp_expect(py, ticks >= 0.3 * HZ && n >= 0.7 * ticks,
              "cfork.py %s: the child's child_work has %.0f samples in %.0f "
              "ticks", mode, n, ticks);
    pp_expect(py, parent >= 0.3 * HZ, "cfork.py %s: the parent's parent_work "
              "has %.0f samples", mode, parent);
}

PP_TEST(lifecycle, a_process_forked_from_c_without_cpythons_fork_handling_is_sampled_where_it_works,
        .timeout = 90)
{
    forked_from_c(py, "main");
    forked_from_c(py, "thread");
}

/* tests/py/fork_sampler_cpus.py: a fork child's sampler starts on the
 * CPU of the thread that forked and, once the child is past its first
 * copy-on-write faults (20 ms), may run where the child's main thread may
 * (pyprof(7), Timing and cost).  A sampler left on one CPU would take its
 * ticks from the program's thread there for as long as the child lives;
 * one given more CPUs than the program allowed its thread would run where
 * the program said not to.  At 1 kHz, which sleeps between ticks (a
 * polling sampler never shares a CPU).  A sampler that then kept sharing
 * the main thread's CPU leaves that one CPU (sample/apart.h). */
/* A CPU list as /proc prints it ("0-1", "0,2-5") as a mask of the first
 * 64 CPUs; 0 for anything else. */
static unsigned long long cpu_list_mask(const char *list)
{
    unsigned long long mask = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || lo > 63)
            return 0;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo || hi > 63)
                return 0;
            p = end;
        }
        for (long c = lo; c <= hi; c++)
            mask |= 1ULL << c;
        if (*p == ',')
            p++;
        else if (*p)
            return 0;
    }
    return mask;
}

static void sampler_cpus(const struct pp_python *py, const char *mode)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("fork_sampler_cpus.py"), mode, NULL };
    pp_run_python(&run, py, dir, 1000, NULL, args);
    pp_expect_ok(py, &run, "fork_sampler_cpus.py");
    int n_early = -1, n_late = -1;
    char early[64] = "", late[64] = "", main_cpus[64] = "";
    const char *e = strstr(run.out, "early "), *l = strstr(run.out, "late "),
               *m = strstr(run.out, "main ");
    pp_assert(py, e && l && m && sscanf(e, "early %d %63s", &n_early, early) >= 1 &&
              sscanf(l, "late %d %63s", &n_late, late) >= 1 &&
              sscanf(m, "main %63s", main_cpus) == 1,
              "fork_sampler_cpus.py %s printed:\n%s", mode, run.out);
    pp_expect(py, n_early == 1 && n_late == 1, "%s: the fork child had %d and "
              "then %d threads of ours (1 expected):\n%s", mode, n_early, n_late,
              run.out);
    /* one CPU: a number, not a list or a range */
    pp_expect(py, early[0] && strspn(early, "0123456789") == strlen(early),
              "%s: right after the fork the sampler may run on CPUs %s, not "
              "on the forking thread's one", mode, early);
    if (!strcmp(mode, "narrow"))
        pp_expect(py, !strcmp(early, main_cpus), "%s: the sampler started on "
                  "CPU %s, the program allowed its thread only %s", mode, early,
                  main_cpus);
    /* Or on those less the one it shared with the main thread, which it
     * then found stopped at every tick (pyprof(7), "CPU mode"). */
    unsigned long long lm = cpu_list_mask(late), mm = cpu_list_mask(main_cpus);
    int apart = lm && mm && (lm & ~mm) == 0 &&
                __builtin_popcountll(mm) - __builtin_popcountll(lm) == 1;
    pp_expect(py, !strcmp(late, main_cpus) || apart, "%s: 0.3 s after the fork "
              "the sampler may run on CPUs %s, the child's main thread on %s "
              "(the same, or one less)", mode, late, main_cpus);
    long pid = 0;
    const char *c = strstr(run.out, "child ");
    pp_assert(py, c && sscanf(c, "child %ld", &pid) == 1, "no child line:\n%s",
              run.out);
    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    pp_expect(py, pp_json_samples_in(doc, pid, "child_work") > 0,
              "%s: the child's child_work has no sample", mode);
}

PP_TEST(lifecycle, a_fork_child_s_sampler_starts_on_the_forking_cpu_then_goes_where_the_program_may,
        .timeout = 90)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
        fprintf(stderr, "SKIP: %s: one CPU, where every thread shares it\n",
                py->label);
        return;
    }
    sampler_cpus(py, "wide");
    sampler_cpus(py, "narrow");
}

/* Lines of fatal_exits.py without their pids: "work_hup signal 1 core 0". */
static void exits_without_pids(const char *out, char *buf, size_t cap)
{
    buf[0] = 0;
    char name[32], how[16];
    long pid;
    int n, core = -1, used = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        core = -1;
        if (sscanf(p, "%31s %ld %15s %d core %d", name, &pid, how, &n, &core) < 4)
            continue;
        used += snprintf(buf + used, cap - (size_t)used, "%s %s %d core %d; ",
                         name, how, n, core);
        if ((size_t)used >= cap)
            break;
    }
}

/* The harness starts every command as a terminal's shell would, with
 * every signal at its default action and none blocked, whatever make
 * check was started from: under nohup or a non-interactive `make check &`
 * the tests inherit SIGHUP, SIGINT and SIGQUIT ignored, and the tests of
 * what those signals do (below; options/pyprof_run_forwards_signals_...)
 * would see them ignored. */
Test(lifecycle, commands_start_with_every_signal_at_its_default_and_none_blocked,
     .timeout = 30)
{
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    const char *argv[] = { "grep", "^Sig\\(Ign\\|Blk\\)", "/proc/self/status", NULL };
    struct pp_result r;
    pp_run(&r, argv, NULL, 20, NULL, NULL);
    cr_assert(r.exited && r.code == 0, "grep %s: %s", pp_describe(&r), r.err);
    cr_expect(strstr(r.out, "SigBlk:\t0000000000000000\n"), "a blocked signal:\n%s", r.out);
    cr_expect(strstr(r.out, "SigIgn:\t0000000000000000\n"), "an ignored signal:\n%s", r.out);
}

/* SIGHUP, SIGQUIT, abort() and SIGINT with their default actions, and a
 * SIGTERM the application handles itself: each child ends exactly as it
 * does without the preload (signal, status, core dump, with RLIMIT_CORE
 * raised so that a lost core would show) and keeps every sample. */
PP_TEST(lifecycle, fatal_signals_end_children_as_without_the_preload_and_lose_nothing,
        .timeout = 90)
{
    struct rlimit core = { RLIM_INFINITY, RLIM_INFINITY };
    setrlimit(RLIMIT_CORE, &core);
    const char *dir = pp_tmpdir(), *cores = pp_tmpdir();
    char plain_dir[4096], pre_dir[4096];
    snprintf(plain_dir, sizeof plain_dir, "%s/plain", cores);
    snprintf(pre_dir, sizeof pre_dir, "%s/profiled", cores);
    const char *plain_argv[] = { py->path, pp_script("fatal_exits.py"), plain_dir, NULL };
    const char *pre_argv[] = { py->path, pp_script("fatal_exits.py"), pre_dir, NULL };
    struct pp_result plain, pre;
    pp_run(&plain, plain_argv, NULL, 60, NULL, NULL);
    pp_run(&pre, pre_argv, pp_profile_env(dir, HZ, NULL), 60, NULL, NULL);
    pp_expect_ok(py, &plain, "fatal_exits.py without the preload");
    pp_expect_ok(py, &pre, "fatal_exits.py under the preload");
    char want[1024], got[1024];
    exits_without_pids(plain.out, want, sizeof want);
    exits_without_pids(pre.out, got, sizeof got);
    pp_assert(py, strstr(want, "work_abort signal 6") && strstr(want, "work_own exit 5"),
              "unexpected ends without the preload: %s", want);
    pp_expect(py, strcmp(want, got) == 0,
              "children ended differently under the preload:\n  without: %s\n  with:    %s",
              want, got);

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    struct { const char *fn; const char *key; int value; } ends[] = {
        { "work_hup", "exit.signal", 1 }, { "work_quit", "exit.signal", 3 },
        { "work_abort", "exit.signal", 6 }, { "work_int", "exit.signal", 2 },
        { "work_own", "exit.code", 5 },
    };
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        long pid = child_pid_any(pre.out, ends[i].fn);
        const struct pp_json *p = pid > 0 ? pp_json_process(doc, pid, NULL) : NULL;
        pp_expect(py, p != NULL, "%s: no process %ld in the report", ends[i].fn, pid);
        if (!p)
            continue;
        double n = pp_json_samples_in(doc, pid, ends[i].fn);
        double ticks = pp_json_num(p, "counters.ticks", 0);
        pp_measure(py, "work samples", n, ">=", 0.6 * HZ * 0.1);
        pp_measure(py, "samples a tick", ticks > 0 ? pp_json_num(p, "samples", 0) / ticks : 0,
                   ">=", 0.8);
        pp_expect(py, n >= 0.6 * HZ * 0.1, "%s: %.0f samples of its work", ends[i].fn, n);
        pp_expect(py, pp_json_num(p, "samples", 0) >= 0.8 * ticks,
                  "%s: %.0f samples of %.0f ticks recorded", ends[i].fn,
                  pp_json_num(p, "samples", 0), ticks);
        const struct pp_json *c = pp_json_get(p, "complete");
        pp_expect(py, c && c->type == PP_JBOOL && c->num == 1, "%s: file incomplete",
                  ends[i].fn);
        pp_expect(py, pp_json_num(p, ends[i].key, -1) == ends[i].value,
                  "%s: %s is %.0f, expected %d", ends[i].fn, ends[i].key,
                  pp_json_num(p, ends[i].key, -1), ends[i].value);
    }
}

/* ------------------------------------------ threads ending without exit() */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* s's lines sorted: threads that end near each other may print in either
 * order. */
static char *sorted_lines(const char *s)
{
    char *copy = strdup(s), *lines[64], *save = NULL;
    size_t n = 0;
    for (char *l = strtok_r(copy, "\n", &save); l && n < 64;
         l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_str);
    char *out = calloc(1, strlen(s) + n + 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    return out;
}

/* last_thread.py MODE, with and without the preload: the process whose
 * threads all end without exit() (the root, or its fork child when
 * started_by is "fork") ends as it does plainly, by glibc's exit(0) in its
 * last thread (its C stdio flushed), within the harness's bound, and its
 * file is complete with the last thread's samples in last_burn. */
static void last_thread(const struct pp_python *py, const char *mode,
                        const char *started_by, double burn_s)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("last_thread.py"), mode, NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, dir, HZ, 60);
    pp_assert(py, plain.exited && plain.code == 0 && strstr(plain.out, "buffered by C"),
              "%s without the preload: %s\n%s\n%s", mode, pp_describe(&plain),
              plain.out, plain.err);
    pp_assert(py, !pre.timed_out, "%s under the preload did not end within 60 s "
              "(%.1f s without it)", mode, plain.seconds);
    pp_expect(py, pre.status == plain.status, "%s: %s under the preload, %s without",
              mode, pp_describe(&pre), pp_describe(&plain));
    pp_expect(py, !strcmp(sorted_lines(pre.out), sorted_lines(plain.out)),
              "%s: stdout differs:\n%s\nvs, without the preload:\n%s", mode,
              pre.out, plain.out);

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    const struct pp_json *p = NULL;
    for (size_t i = 0; procs && i < procs->n && !p; i++) {
        const char *by = pp_json_str(&procs->items[i], "started_by");
        if (by && !strcmp(by, started_by))
            p = &procs->items[i];
    }
    pp_assert(py, p != NULL, "%s: no process started by %s in the report", mode,
              started_by);
    long pid = (long)pp_json_num(p, "pid", -1);
    const struct pp_json *c = pp_json_get(p, "complete");
    pp_expect(py, c && c->type == PP_JBOOL && c->num == 1,
              "%s: process %ld's file is not complete", mode, pid);
    pp_expect(py, pp_json_num(p, "exit.code", -1) == 0,
              "%s: process %ld's file does not end with exit 0", mode, pid);
    double n = pp_json_samples_in(doc, pid, "last_burn");
    pp_measure(py, "last thread's samples", n, ">=", burn_s * HZ * 0.1);
    pp_expect(py, n >= burn_s * HZ * 0.1, "%s: %.0f samples of the last thread "
              "in last_burn, expected at least %.0f", mode, n, burn_s * HZ * 0.1);
    /* A main thread that has ended is not sampled on (CPython keeps its
     * thread state): at most the moment before it ended, and the 10 ms
     * the sampler takes to notice. */
    double dead = pp_json_samples_in(doc, pid, "end_main_thread");
    pp_measure(py, "ended main thread's samples", dead, "<=", 0.05 * HZ);
    pp_expect(py, dead <= 0.05 * HZ, "%s: %.0f samples of the ended main thread "
              "in end_main_thread, expected at most %.0f", mode, dead, 0.05 * HZ);
}

PP_TEST(lifecycle, a_fork_child_whose_forking_worker_thread_returns_ends_as_without_the_preload,
        .timeout = 150)
{
    last_thread(py, "fork_from_worker", "fork", 0.5);
}

PP_TEST(lifecycle, main_pthread_exit_while_a_worker_works_ends_as_without_the_preload,
        .timeout = 150)
{
    last_thread(py, "main_exits", "root", 0.6);
}

PP_TEST(lifecycle, threads_ending_in_reverse_order_after_main_pthread_exit_end_as_without_the_preload,
        .timeout = 150)
{
    last_thread(py, "staggered", "root", 0.8);
}
