/*
 * test_fds.c — the program's fd table is its own: a profiled process
 * finds exactly the fds it finds without the preload (listed and probed),
 * after its file has been flushed, right after fork, later in the fork
 * child, and after exec; under LD_PRELOAD and under pyprof-run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define HZ 400

static void same_fds(const struct pp_python *py, const struct pp_result *plain,
                     const struct pp_result *pre, const char *how)
{
    pp_assert(py, plain->exited && plain->code == 0 && strstr(plain->out, "exec fork child later"),
              "fds.py without the preload: %s\n%s\n%s", pp_describe(plain),
              plain->out, plain->err);
    pp_expect(py, pre->status == plain->status, "fds.py under %s: %s, without "
              "it: %s\n%s", how, pp_describe(pre), pp_describe(plain), pre->err);
    pp_expect(py, strcmp(pre->out, plain->out) == 0, "under %s the program "
              "finds other fds:\n%s\nwithout it:\n%s", how, pre->out, plain->out);
}

/* The files were written meanwhile: the fds were ours, not missing ones. */
static void files_written(const struct pp_python *py, const char *dir)
{
    const struct pp_json *doc = pp_json_report(py, dir, NULL, 0);
    const struct pp_json *procs = pp_json_get(doc, "processes");
    pp_expect(py, procs && procs->n == 4, "%zu processes in the report, "
              "expected 4 (two images, two fork children)", procs ? procs->n : 0);
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *c = pp_json_get(&procs->items[i], "complete");
        pp_expect(py, c && c->type == PP_JBOOL && c->num == 1 &&
                      pp_json_num(&procs->items[i], "samples", 0) > 0,
                  "process %.0f: file not complete or without samples",
                  pp_json_num(&procs->items[i], "pid", -1));
    }
}

PP_TEST(fds, a_profiled_process_finds_exactly_its_own_fds_after_flushes_fork_and_exec,
        .timeout = 90)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("fds.py"), NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, dir, HZ, 60);
    same_fds(py, &plain, &pre, "the preload");
    files_written(py, dir);
}

PP_TEST(fds, a_process_under_pyprof_run_finds_exactly_its_own_fds, .timeout = 90)
{
    const char *dir = pp_tmpdir();
    const char *argv[] = { py->path, pp_script("fds.py"), NULL };
    const char *run_argv[] = { getenv("PYPROF_TEST_RUN"), "-q", "-o", dir, "--",
                               py->path, pp_script("fds.py"), NULL };
    struct pp_result plain, pre;
    pp_run(&plain, argv, NULL, 60, NULL, NULL);
    pp_run(&pre, run_argv, NULL, 60, NULL, NULL);
    same_fds(py, &plain, &pre, "pyprof-run");
    files_written(py, dir);
}
