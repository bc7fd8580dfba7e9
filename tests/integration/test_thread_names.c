/*
 * test_thread_names.c — threads are shown by the names the program gave
 * them (pyprof(7), "Thread names"), whole and as they were last set,
 * with the OS's name beside them where it differs, in every format that
 * names threads.  tests/py/thread_names.py prints each thread's id and
 * final name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_report.h"

#define NAMES_HZ 100
#define NAMED 7

struct named { long tid; char name[64]; };

/* The JSON report's record of thread tid, or NULL. */
static const struct pp_json *thread_of(const struct pp_json *doc, long tid)
{
    const struct pp_json *ps = pp_json_get(doc, "processes");
    for (size_t i = 0; ps && i < ps->n; i++) {
        const struct pp_json *ts = pp_json_get(&ps->items[i], "threads");
        for (size_t k = 0; ts && k < ts->n; k++)
            if ((long)pp_json_num(&ts->items[k], "tid", -1) == tid)
                return &ts->items[k];
    }
    return NULL;
}

/* The output of pyprof-merge --format format (and --group thread for
 * collapsed) of dir. */
static const char *report(const struct pp_python *py, const char *dir,
                          const char *format)
{
    struct pp_result *r = calloc(1, sizeof *r);
    const char *group[] = { "--group", "thread", NULL };
    pp_merge(r, format, strcmp(format, "collapsed") ? NULL : group, dir);
    pp_assert(py, r->exited && r->code == 0, "pyprof-merge --format %s: %s: %.1000s",
              format, pp_describe(r), r->err);
    return r->out;
}

PP_TEST(thread_names, threads_are_named_as_the_program_named_them_in_every_format,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("thread_names.py"), "1.5", NULL };
    pp_run_python(&run, py, dir, NAMES_HZ, NULL, args);
    pp_expect_ok(py, &run, "thread_names.py");
    struct named want[NAMED];
    size_t n = 0;
    for (const char *l = run.out; l && *l && n < NAMED;
         l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (sscanf(l, "thread %ld %63[^\n]", &want[n].tid, want[n].name) == 2)
            n++;
    pp_assert(py, n == NAMED, "thread_names.py named %zu threads:\n%s", n, run.out);

    const struct pp_json *doc = pp_json_report(py, dir, "wall", 0);
    const char *text = report(py, dir, "text"), *collapsed = report(py, dir, "collapsed"),
               *speedscope = report(py, dir, "speedscope"),
               *gecko = report(py, dir, "gecko"), *html = report(py, dir, "html");
    char pprof_file[1024];
    snprintf(pprof_file, sizeof pprof_file, "%s/names.pb.gz", dir);
    const char *opts[] = { "-o", pprof_file, NULL };
    struct pp_result pr, unz;
    pp_merge(&pr, "pprof", opts, dir);
    const char *gz[] = { "gzip", "-dc", pprof_file, NULL };
    pp_run(&unz, gz, NULL, 30, NULL, NULL);
    pp_assert(py, unz.exited && unz.code == 0, "gzip -dc of the pprof file: %s",
              pp_describe(&unz));
    for (size_t i = 0; i < n; i++) {
        const struct pp_json *t = thread_of(doc, want[i].tid);
        const char *name = t ? pp_json_str(t, "name") : NULL;
        const char *os = t ? pp_json_str(t, "os_name") : NULL;
        fprintf(stderr, "[%s] tid %ld: program's name \"%s\", report's \"%s\", OS's \"%s\"\n",
                py->label, want[i].tid, want[i].name, name ? name : "(none)",
                os ? os : "(same)");
        int same = name && !strcmp(name, want[i].name);
        pp_expect(py, same, "tid %ld is \"%s\" in the JSON report, the program named "
                  "it \"%s\"", want[i].tid, name ? name : "(no record)", want[i].name);
        if (!same)
            continue;
        pp_expect(py, !os || strcmp(os, name), "tid %ld: os_name \"%s\" is its name",
                  want[i].tid, os);
        char line[128];
        snprintf(line, sizeof line, "thread %ld %s", want[i].tid, want[i].name);
        pp_expect(py, strstr(collapsed, line), "no \"%s\" in the collapsed stacks by "
                  "thread", line);
        snprintf(line, sizeof line, " %-10ld ", want[i].tid);
        const char *row = strstr(text, line);
        const char *eol = row ? strchr(row, '\n') : NULL;
        const char *at = row ? strstr(row, want[i].name) : NULL;
        pp_expect(py, at && (!eol || at < eol), "no row of tid %ld named \"%s\" in the "
                  "text report's threads:\n%.3000s", want[i].tid, want[i].name, text);
        snprintf(line, sizeof line, ": %s", want[i].name);
        pp_expect(py, strstr(speedscope, line), "no \"%s\" in the speedscope file", line);
        /* the Firefox Profiler wants the main thread named GeckoMain
         * (pyprof-merge(1), TIME-ORDERED FORMATS) */
        snprintf(line, sizeof line, "\"name\": \"%s",
                 want[i].tid == (long)run.pid ? "GeckoMain" : want[i].name);
        pp_expect(py, strstr(gecko, line), "no \"%s\" in the gecko file", line);
        snprintf(line, sizeof line, "[%ld,\"%s", want[i].tid, want[i].name);
        pp_expect(py, strstr(html, line), "no \"%s\" in the HTML page", line);
        pp_expect(py, memmem(unz.out, unz.out_len, want[i].name, strlen(want[i].name)),
                  "no \"%s\" among the pprof file's strings", want[i].name);
    }
}
