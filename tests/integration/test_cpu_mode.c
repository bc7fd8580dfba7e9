/*
 * test_cpu_mode.c — CPU mode on a loaded machine: a thread's CPU-mode
 * samples, counted, give its CPU time as the kernel counts it, and the
 * split of that time between its functions, whatever share of a CPU the
 * thread gets (pyprof(7), "CPU mode").  tests/py/cpu_split.py runs until
 * its main thread has used 4 s of CPU, 70 % of it in heavy and 30 % in
 * light by its own CPU clock, beside 0, 2 and 5 CPU hogs the test starts
 * (on this 2-core machine: from a whole CPU down to about a quarter).
 * Builds before 2026-11-28 flagged a sample only when the thread had run
 * for half the interval before it: at 100 Hz beside 5 hogs they reported
 * 0.52 s for 2.0 s, with heavy at 0.95 of it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 1000

/* n processes spinning until killed (or until the test process dies). */
static void start_hogs(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        cr_assert(pids[i] >= 0, "fork failed");
        if (pids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            for (volatile unsigned long x = 0;; x++)
                ;
        }
    }
}

static void stop_hogs(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
}

static void beside_hogs(const struct pp_python *py, int hogs)
{
    const char *dir = pp_tmpdir();
    pid_t pids[8];
    start_hogs(pids, hogs);
    struct pp_result run;
    const char *args[] = { "-S", "-I", pp_script("cpu_split.py"), "4", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    stop_hogs(pids, hogs);
    pp_expect_ok(py, &run, "cpu_split.py");
    double cpu, heavy, light, wall;
    pp_assert(py, sscanf(run.out, "cpu %lf heavy %lf light %lf wall %lf", &cpu,
                         &heavy, &light, &wall) == 4,
              "cpu_split.py printed: %s", run.out);
    const struct pp_json *doc = pp_json_report(py, dir, "cpu", 0);
    double r = pp_json_samples_in(doc, run.pid, "run") / HZ;
    double h = pp_json_samples_in(doc, run.pid, "heavy");
    double l = pp_json_samples_in(doc, run.pid, "light");
    double share = h + l > 0 ? h / (h + l) : 0, want = heavy / (heavy + light);
    fprintf(stderr, "[%s] %d hogs: run used %.3f s of CPU in %.2f s; CPU mode "
            "%.3f s (%+.1f %%); heavy %.3f of it, %.3f by its clock\n",
            py->label, hogs, cpu, wall, r, (r / cpu - 1) * 100, share, want);
    /* The count is the credit of CPU time spent, to a tick or two. */
    char what[64];
    snprintf(what, sizeof what, "%d hogs: CPU mode against the CPU clock", hogs);
    pp_measure(py, what, r / cpu, ">=", 0.95);
    pp_measure(py, what, r / cpu, "<=", 1.05);
    /* Beside 5 hogs (a third of a CPU) heavy comes out high, by 0.6 to 3.8
     * points so far: the promise (pyprof(7), "CPU mode") is the split
     * within 3 points up to two hogs, and within 6 beside five. */
    double split = hogs >= 5 ? 0.06 : 0.03;
    snprintf(what, sizeof what, "%d hogs: heavy's share off its clock's", hogs);
    pp_measure(py, what, share - want, ">=", -split);
    pp_measure(py, what, share - want, "<=", split);
    pp_expect(py, r >= cpu * 0.95 && r <= cpu * 1.05, "%d hogs: CPU mode gives "
              "run %.3f s, its CPU clock %.3f s", hogs, r, cpu);
    /* About 4,000 flagged samples: the share's sampling noise is about
     * 0.7 points, the limit four times that. */
    pp_expect(py, share >= want - split && share <= want + split, "%d hogs: CPU "
              "mode gives heavy %.3f of run, its CPU clock %.3f", hogs, share,
              want);
}

PP_TEST(cpu_mode, a_threads_cpu_time_and_its_split_are_counted_beside_0_2_and_5_cpu_hogs,
        .timeout = 240)
{
    beside_hogs(py, 0);
    beside_hogs(py, 2);
    beside_hogs(py, 5);
}
