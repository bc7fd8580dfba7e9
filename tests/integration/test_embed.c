/*
 * test_embed.c — libraries loaded with dlopen: an interpreter that an
 * embedder loads late is profiled (by path and by bare name), and the
 * preload leaves dlopen's search for bare names exactly as it was (the
 * caller's own RUNPATH still applies).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define HZ 400

/* Compiles tests/fixtures/NAME.c into a shared library at out. */
static void cc_shared(const char *name, const char *out, const char *extra)
{
    char src[4096];
    snprintf(src, sizeof src, "%s/../fixtures/%s.c", getenv("PYPROF_TEST_SCRIPTS"), name);
    const char *argv[] = { "cc", "-shared", "-fPIC", "-o", out, src, extra, NULL };
    if (!extra)
        argv[6] = NULL;
    struct pp_result r;
    pp_run(&r, argv, NULL, 60, NULL, NULL);
    cr_assert(r.exited && r.code == 0, "cc %s: %s\n%s", name, pp_describe(&r), r.err);
}

PP_TEST(embed, a_bare_name_dlopen_still_searches_the_callers_runpath, .timeout = 60)
{
    const char *lib = pp_tmpdir();
    char sub[4096], inner[4200], outer[4200], code[8800];
    snprintf(sub, sizeof sub, "%s/sub", lib);
    const char *mk[] = { "mkdir", "-p", sub, NULL };
    struct pp_result r;
    pp_run(&r, mk, NULL, 10, NULL, NULL);
    snprintf(inner, sizeof inner, "%s/libpp_inner.so", sub);
    snprintf(outer, sizeof outer, "%s/libpp_outer.so", lib);
    cc_shared("rpath_inner", inner, NULL);
    cc_shared("rpath_outer", outer, "-Wl,-rpath,$ORIGIN/sub");
    /* libpp_outer.so is opened by path; it opens libpp_inner.so by bare
     * name, which only its own RUNPATH finds. */
    snprintf(code, sizeof code,
             "import ctypes; print('probe', ctypes.CDLL(%s%s%s).probe())", "'", outer, "'");
    const char *argv[] = { py->path, "-c", code, NULL };
    struct pp_result plain, pre;
    pp_run_twice(&plain, &pre, argv, pp_tmpdir(), HZ, 30);
    pp_assert(py, strstr(plain.out, "probe 42"), "without the preload: %s %s",
              plain.out, plain.err);
    pp_expect(py, strstr(pre.out, "probe 42"), "under the preload the bare-name "
              "dlopen did not find the library its caller's RUNPATH names: %s %s",
              pre.out, pre.err);
}

/* libpython's directory and file name for py, or 0 for a static build. */
static int libpython_of(const struct pp_python *py, char *dir, size_t dcap,
                        char *name, size_t ncap, char *home, size_t hcap)
{
    const char *argv[] = { py->path, "-c",
        "import sys, sysconfig as s; print(s.get_config_var('LIBDIR'), "
        "s.get_config_var('INSTSONAME') or '-', sys.base_prefix)", NULL };
    struct pp_result r;
    pp_run(&r, argv, NULL, 30, NULL, NULL);
    char d[1024], n[256], h[1024];
    if (sscanf(r.out, "%1023s %255s %1023s", d, n, h) != 3 || !strstr(n, ".so"))
        return 0;
    snprintf(dir, dcap, "%s", d);
    snprintf(name, ncap, "%s", n);
    snprintf(home, hcap, "%s", h);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", d, n);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* threaded: the interpreter lives in a second thread and main ends with
 * pthread_exit (pp-embed --thread); the process then ends by glibc's
 * exit(0) when that thread does, and the file must say so. */
static void embedded(const struct pp_python *py, int by_path, int threaded)
{
    char dir[1024], name[256], home[1024];
    if (!libpython_of(py, dir, sizeof dir, name, sizeof name, home, sizeof home)) {
        fprintf(stderr, "SKIP: embed test for %s: no shared libpython (static build)\n",
                py->label);
        return;
    }
    char lib[2048], ldpath[2048], phome[2048];
    snprintf(lib, sizeof lib, "%s/%s", dir, name);
    snprintf(ldpath, sizeof ldpath, "LD_LIBRARY_PATH=%s", dir);
    snprintf(phome, sizeof phome, "PYTHONHOME=%s", home);
    const char *script =
        "import time\n"
        "def embedded_burn(seconds):\n"
        "    end = time.perf_counter() + seconds\n"
        "    while time.perf_counter() < end:\n"
        "        pass\n"
        "embedded_burn(0.5)\n";
    const char *libarg = by_path ? lib : name;
    const char *argv[] = { getenv("PYPROF_TEST_EMBED"),
                           threaded ? "--thread" : libarg,
                           threaded ? libarg : script,
                           threaded ? script : NULL, NULL };
    const char *extra[] = { ldpath, phome, NULL };
    const char *out = pp_tmpdir();
    struct pp_result run;
    pp_run(&run, argv, pp_profile_env(out, HZ, extra), 60, NULL, NULL);
    pp_assert(py, run.exited && run.code == 0, "pp-embed %s %s: %s\n%s", argv[1],
              argv[2], pp_describe(&run), run.err);
    struct pp_result rep;
    pp_merge(&rep, "collapsed", NULL, out);
    pp_assert(py, rep.exited && rep.code == 0, "pyprof-merge: %s\n%s",
              pp_describe(&rep), rep.err);
    struct pp_profile prof;
    pp_parse_collapsed(py, &rep, &prof);
    /* embedded_burn is most of the run: its share of the samples the run
     * got, which a loaded machine does not shrink as it does the count */
    long n = pp_count_leaf(&prof, "embedded_burn");
    pp_measure(py, "embedded_burn share", prof.total ? (double)n / (double)prof.total : 0,
               ">=", 0.5);
    pp_expect(py, prof.total >= HZ / 10 && n * 2 >= prof.total,
              "libpython loaded by %s (%s): %ld of %ld samples in embedded_burn, "
              "expected most of them", by_path ? "path" : "bare name", libarg, n,
              prof.total);
    if (!threaded)
        return;
    pp_merge(&rep, "json", NULL, out);
    const struct pp_json *doc = pp_parse_json(py, &rep);
    const struct pp_json *c = pp_json_get(doc, "processes.0.complete");
    pp_expect(py, c && c->type == PP_JBOOL && c->num == 1,
              "an interpreter finalized in a second thread after main's "
              "pthread_exit: the file is not complete");
    pp_expect(py, pp_json_num(doc, "processes.0.exit.code", -1) == 0,
              "the file does not end with exit 0 (glibc's exit by the last thread)");
}

PP_TEST(embed, an_interpreter_loaded_by_path_with_dlopen_is_profiled, .timeout = 60)
{
    embedded(py, 1, 0);
}

PP_TEST(embed, an_interpreter_loaded_by_bare_name_with_dlopen_is_profiled, .timeout = 60)
{
    embedded(py, 0, 0);
}

PP_TEST(embed, an_interpreter_finalized_in_a_second_thread_after_main_pthread_exit_ends_the_process_with_a_complete_file,
        .timeout = 60)
{
    embedded(py, 1, 1);
}

/* A program linked against libpython that never starts it is not a Python
 * process to pyprof (pyprof(7), DIAGNOSTICS): no profile, no not-profiled
 * record, no output directory, not even the one message of a bad
 * PYPROF_LOG (options/a_bad_log_level_is_said_once), even when the sampler could not have
 * run anyway (RLIMIT_SIGPENDING 0: no timer), which a Python process that
 * starts does report (run_parity/nothing_on_stderr_and_unprofiled_are_named). */
PP_TEST(embed, a_program_that_links_libpython_without_starting_it_leaves_nothing,
        .timeout = 60)
{
    char dir[1024], name[256], home[1024];
    if (!libpython_of(py, dir, sizeof dir, name, sizeof name, home, sizeof home)) {
        fprintf(stderr, "SKIP: links-libpython test for %s: no shared libpython "
                        "(static build)\n", py->label);
        return;
    }
    char src[4096], prog[4200], lib[2048], rpath[2100];
    snprintf(src, sizeof src, "%s/../fixtures/links_libpython.c",
             getenv("PYPROF_TEST_SCRIPTS"));
    snprintf(prog, sizeof prog, "%s/links_libpython", pp_tmpdir());
    snprintf(lib, sizeof lib, "%s/%s", dir, name);
    snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", dir);
    const char *cc[] = { "cc", "-o", prog, src, lib, rpath, NULL };
    struct pp_result r;
    pp_run(&r, cc, NULL, 60, NULL, NULL);
    pp_assert(py, r.exited && r.code == 0, "cc: %s\n%s", pp_describe(&r), r.err);

    for (int no_timer = 0; no_timer < 2; no_timer++) {
        char out[4200];
        snprintf(out, sizeof out, "%s/out", pp_tmpdir());
        const char *plain[] = { prog, NULL };
        const char *limited[] = { "prlimit", "--sigpending=0", prog, NULL };
        const char *const *argv = no_timer ? limited : plain;
        const char *bad_log[] = { "PYPROF_LOG=yes", NULL };
        pp_run(&r, argv, pp_profile_env(out, HZ, bad_log), 30, NULL, NULL);
        pp_assert(py, r.exited && r.code == 0 && strstr(r.out, "initialized 0\n"),
                  "%s: %s\n%s%s", prog, pp_describe(&r), r.out, r.err);
        pp_expect(py, !strstr(r.err, "pyprof["), "%s, PYPROF_LOG=yes: not a Python, "
                  "but pyprof said:\n%s", no_timer ? "without a timer" : "plainly", r.err);
        pp_expect(py, access(out, F_OK) != 0,
                  "%s: the output directory was created (%zu records, %zu profiles)",
                  no_timer ? "without a timer" : "plainly", pp_count_files(out, ".unprofiled"),
                  pp_count_files(out, ".zst"));

        const char *run_dir = pp_tmpdir();
        const char *rargv[] = { getenv("PYPROF_TEST_RUN"), "-o", run_dir, "--",
                                argv[0], argv[1], argv[2], NULL };
        pp_run(&r, rargv, NULL, 30, NULL, NULL);
        pp_expect(py, r.exited && r.code == 0 && !strstr(r.err, "not profiled") &&
                      pp_count_files(run_dir, "") == 0,
                  "under pyprof-run%s: %s, %zu files\n%s",
                  no_timer ? " without a timer" : "", pp_describe(&r),
                  pp_count_files(run_dir, ""), r.err);
    }
}
