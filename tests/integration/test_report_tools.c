/*
 * test_report_tools.c — the pprof, pstats and lines reports read by what
 * their users open them with (`go tool pprof`, Python's pstats, a reader
 * of the text), on real multi-process profiles, with totals compared to
 * the JSON report of the same files; and the progress line on a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 500

static const char *const MODES[] = { "wall", "cpu", "gil", "exception" };

/* mp_sum.py fork profiled into a fresh directory: a parent and three
 * pool workers, all running sum_worker. */
static const char *profile_pool(const struct pp_python *py)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("mp_sum.py"), "fork", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "mp_sum.py");
    pp_assert(py, pp_count_files(dir, ".zst") >= 2, "mp_sum.py wrote %zu files",
              pp_count_files(dir, ".zst"));
    return dir;
}

/* The reports accept exit status 1 (a damaged input, the report made
 * from what it held): every report of a test reads the same files, and
 * these tests compare reports, not the files' health. */
static const struct pp_json *json_report(const struct pp_python *py,
                                         const char *dir, const char *mode)
{
    return pp_json_report(py, dir, mode, 1);
}

/* The report's samples times each process's interval, in ns. */
static double json_ns(const struct pp_json *doc)
{
    const struct pp_json *procs = pp_json_get(doc, "processes");
    double ns = 0;
    for (size_t i = 0; procs && i < procs->n; i++)
        ns += pp_json_num(&procs->items[i], "samples", 0) *
              pp_json_num(&procs->items[i], "interval_ns", 0);
    return ns;
}

/* pyprof-merge --format FORMAT opts... dir into a file beside dir's
 * profiles (not a .zst: merging dir again does not read it). */
static const char *merge_to_file(const struct pp_python *py, const char *dir,
                                 const char *format, const char *name,
                                 const char *const extra[])
{
    static char path[4][1024];
    static int next;
    char *out = path[next++ % 4];
    snprintf(out, sizeof path[0], "%s/%s", dir, name);
    const char *opts[8] = { "-o", out };
    for (size_t i = 0; extra && extra[i] && i < 5; i++)
        opts[i + 2] = extra[i];
    struct pp_result rep;
    pp_merge(&rep, format, opts, dir);
    pp_assert(py, rep.exited && rep.code <= 1,
              "pyprof-merge --format %s: %s; stderr:\n%.1000s", format,
              pp_describe(&rep), rep.err);
    return out;
}


/* ------------------------------------------------------------ pprof */


PP_TEST(tools, go_tool_pprof_reads_every_mode_with_the_json_totals_labels_and_lines,
        .timeout = 400)
{
    if (!pp_on_path("go")) {
        fprintf(stderr, "SKIP: pprof test: go (Debian's golang-go) is not installed\n");
        return;
    }
    const char *dir = profile_pool(py);
    const char *file = merge_to_file(py, dir, "pprof", "profile.pb.gz", NULL);

    /* -top, per sample type: "... of <N>ns total" is the JSON's total. */
    for (int k = 0; k < 3; k++) {
        const struct pp_json *doc = json_report(py, dir, MODES[k]);
        double want = json_ns(doc);
        char si[32];
        snprintf(si, sizeof si, "-sample_index=%s", MODES[k]);
        const char *args[] = { "-top", si, "-unit=ns", NULL };
        struct pp_result r;
        pp_go_pprof(py, &r, args, file);
        const char *of = strstr(r.out, "% of ");
        double got = -1;
        if (of)
            got = strtod(of + 5, NULL);
        else if (want == 0)
            got = 0;                     /* pprof prints no node line */
        pp_expect(py, got == want, "mode %s: go tool pprof -top total %.0f ns, "
                  "JSON %.0f ns; output:\n%.1500s", MODES[k], got, want, r.out);
        if (k == 0)
            pp_expect(py, strstr(r.out, "sum_worker") != NULL,
                      "-top does not list sum_worker:\n%.1500s", r.out);
    }

    /* -traces: every sample with its labels; the values add up to the
     * wall total, and every process's pid is there. */
    const struct pp_json *wall = json_report(py, dir, "wall");
    const char *targs[] = { "-traces", "-unit=ns", NULL };
    struct pp_result t;
    pp_go_pprof(py, &t, targs, file);
    double sum = 0;
    size_t traces = 0;
    for (char *line = t.out; line && *line;) {
        char *nl = strchr(line, '\n');
        char *p = line;
        while (*p == ' ')
            p++;
        char *end;
        double v = strtod(p, &end);
        if (end != p && !strncmp(end, "ns ", 3)) {
            sum += v;
            traces++;
        }
        line = nl ? nl + 1 : NULL;
    }
    pp_expect(py, traces > 0 && sum == json_ns(wall),
              "-traces: %zu traces adding up to %.0f ns, JSON wall %.0f ns",
              traces, sum, json_ns(wall));
    const struct pp_json *procs = pp_json_get(wall, "processes");
    for (size_t i = 0; procs && i < procs->n; i++) {
        if (pp_json_num(&procs->items[i], "samples", 0) == 0)
            continue;
        char want[64];
        snprintf(want, sizeof want, "pid:  %.0f\n", pp_json_num(&procs->items[i], "pid", 0));
        pp_expect(py, strstr(t.out, want) != NULL, "-traces has no label \"%s\"", want);
    }
    pp_expect(py, strstr(t.out, "thread:  MainThread\n") != NULL,
              "-traces has no thread label MainThread");
    pp_expect(py, strstr(t.out, "tid:  ") != NULL, "-traces has no tid label");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "command:  %s %s fork\n", py->path, pp_script("mp_sum.py"));
    pp_expect(py, strstr(t.out, cmd) != NULL, "-traces has no label \"%s\"", cmd);

    /* -raw: sum_worker's locations carry its file, lines and first line. */
    const char *rargs[] = { "-raw", NULL };
    struct pp_result raw;
    pp_go_pprof(py, &raw, rargs, file);
    char loc[1300];
    snprintf(loc, sizeof loc, " sum_worker %s:%ld s=%ld", pp_script("mp_sum.py"),
             pp_script_line("mp_sum.py", "total += n"),
             pp_script_line("mp_sum.py", "def sum_worker"));
    pp_expect(py, strstr(raw.out, loc) != NULL,
              "-raw has no location \"%s\":\n%.3000s", loc, raw.out);
}

/* ------------------------------------------------------------ pstats */

struct pstats_out { double total_tt; char *out; };

/* Runs tests/py/pstats_check.py (every sort key, print_stats, callers,
 * callees) with py on file. */
static void pstats_check(const struct pp_python *py, const char *file,
                         struct pstats_out *o)
{
    struct pp_result r;
    const char *argv[] = { py->path, pp_script("pstats_check.py"), file, NULL };
    pp_run(&r, argv, NULL, 120, NULL, NULL);
    pp_assert(py, r.exited && r.code == 0, "pstats_check.py: %s; stderr:\n%.2000s",
              pp_describe(&r), r.err);
    const char *tt = strstr(r.out, "TOTAL_TT ");
    pp_assert(py, tt != NULL, "pstats_check.py printed no total:\n%.1000s", r.out);
    o->total_tt = strtod(tt + 9, NULL);
    o->out = r.out;
}

/* The FUNC line of funcname: cc, nc, tt, ct; 0 if there is none. */
static int pstats_func(const struct pstats_out *o, const char *name, double v[4])
{
    char key[300];
    snprintf(key, sizeof key, "\nFUNC %s ", name);
    const char *p = strstr(o->out, key);
    if (!p)
        return 0;
    p += strlen(key);
    for (int i = 0; i < 4; i++)
        v[i] = strtod(p, (char **)&p);
    return 1;
}

static int close_to(double a, double b)
{
    double d = a > b ? a - b : b - a;
    return d <= 1e-6 * (b > 1 ? b : 1);
}

PP_TEST(tools, pstats_loads_sorts_and_prints_by_every_key_with_the_json_totals,
        .timeout = 300)
{
    const char *dir = profile_pool(py);
    for (int k = 0; k < 3; k++) {
        const char *mode[] = { "--mode", MODES[k], NULL };
        const char *file = merge_to_file(py, dir, "pstats", "profile.pstats", mode);
        struct pstats_out o;
        pstats_check(py, file, &o);
        const struct pp_json *doc = json_report(py, dir, MODES[k]);
        pp_expect(py, close_to(o.total_tt, json_ns(doc) / 1e9),
                  "mode %s: pstats total %.9f s, JSON %.9f s", MODES[k], o.total_tt,
                  json_ns(doc) / 1e9);
        const struct pp_json *fns = pp_json_get(doc, "functions");
        const struct pp_json *fn = pp_json_find(fns, "name", "sum_worker");
        double v[4], interval = pp_json_num(doc, "processes.0.interval_ns", 0) / 1e9;
        pp_assert(py, fn && pstats_func(&o, "sum_worker", v),
                  "mode %s: sum_worker missing (JSON %p)", MODES[k], (void *)fn);
        pp_expect(py, v[0] == pp_json_num(fn, "total", -1) &&
                      close_to(v[2], pp_json_num(fn, "self", -1) * interval) &&
                      close_to(v[3], pp_json_num(fn, "total", -1) * interval),
                  "mode %s: sum_worker cc %.0f tt %.6f ct %.6f; JSON total %.0f "
                  "self %.0f at %.6f s", MODES[k], v[0], v[2], v[3],
                  pp_json_num(fn, "total", -1), pp_json_num(fn, "self", -1), interval);
    }
}

PP_TEST(tools, pstats_counts_a_recursive_function_once_per_sample_in_cumtime,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("recurse.py"), "40", "0.5", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "recurse.py");
    const char *file = merge_to_file(py, dir, "pstats", "profile.pstats", NULL);
    struct pstats_out o;
    pstats_check(py, file, &o);
    const struct pp_json *doc = json_report(py, dir, "wall");
    const struct pp_json *fn = pp_json_find(pp_json_get(doc, "functions"), "name", "rec");
    double v[4], interval = pp_json_num(doc, "processes.0.interval_ns", 0) / 1e9;
    pp_assert(py, fn && pstats_func(&o, "rec", v), "rec missing");
    double total = pp_json_num(fn, "total", -1);
    pp_expect(py, v[0] == total && close_to(v[3], total * interval),
              "rec: cc %.0f, cumtime %.6f s; JSON total %.0f samples at %.6f s",
              v[0], v[3], total, interval);
    pp_expect(py, v[3] <= o.total_tt + 1e-9, "rec's cumtime %.6f exceeds the total %.6f",
              v[3], o.total_tt);
    /* 41 frames of rec on the samples at the bottom: nc/cc shows it. */
    pp_measure(py, "rec frames a sample", v[0] > 0 ? v[1] / v[0] : 0, ">=", 30);
    pp_expect(py, v[1] >= 30 * v[0], "rec: nc %.0f, cc %.0f: recursion not counted "
              "in nc", v[1], v[0]);
}

/* ------------------------------------------------------------ lines */

/* Per-line samples of funcname's innermost frames in the JSON stacks,
 * into self[line] (lines < max). */
static void json_line_self(const struct pp_json *doc, const char *name, double *self,
                           size_t max)
{
    const struct pp_json *stacks = pp_json_get(doc, "stacks");
    for (size_t i = 0; stacks && i < stacks->n; i++) {
        const struct pp_json *fr = pp_json_get(&stacks->items[i], "frames");
        if (!fr || !fr->n)
            continue;
        const struct pp_json *leaf = &fr->items[fr->n - 1];
        const char *n = pp_json_str(leaf, "name");
        long line = (long)pp_json_num(leaf, "line", -1);
        if (n && !strcmp(n, name) && line > 0 && (size_t)line < max)
            self[line] += pp_json_num(&stacks->items[i], "count", 0);
    }
}

/* The block of `--format lines` for funcname (up to the next function),
 * NUL-terminated in a copy. */
static char *lines_block(const char *report, const char *name)
{
    char key[300];
    snprintf(key, sizeof key, "\nFunction: %s at ", name);
    const char *p = strstr(report, key);
    if (!p)
        return NULL;
    const char *end = strstr(p + 1, "\nFunction: ");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char *b = malloc(n + 1);
    memcpy(b, p, n);
    b[n] = 0;
    return b;
}

/* A row "LINE SAMPLES SELF PCT  SOURCE" for line; 0 if none. */
static int lines_row(const char *block, long line, double *samples, double *self,
                     const char **source)
{
    for (const char *p = block; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char *end;
        long l = strtol(p, &end, 10);
        if (end == p || l != line || (*end != ' '))
            continue;
        double s = strtod(end, &end), f = strtod(end, &end);
        strtod(end, &end);
        *samples = s;
        *self = f;
        *source = end + 2;
        return 1;
    }
    return 0;
}

PP_TEST(tools, lines_shows_each_line_of_the_hot_function_merged_over_processes,
        .timeout = 200)
{
    const char *dir = profile_pool(py);
    struct pp_result rep;
    const char *opts[] = { "--top", "3", NULL };
    pp_merge(&rep, "lines", opts, dir);
    pp_assert(py, rep.exited && rep.code <= 1, "pyprof-merge --format lines: %s; "
              "stderr:\n%.1000s", pp_describe(&rep), rep.err);
    const struct pp_json *doc = json_report(py, dir, "wall");
    const struct pp_json *fn = pp_json_find(pp_json_get(doc, "functions"), "name",
                                            "sum_worker");
    pp_assert(py, fn, "no sum_worker in the JSON report");
    /* sum_worker ran in several processes: the counts below are theirs
     * together. */
    const struct pp_json *stacks = pp_json_get(doc, "stacks");
    double pids[8] = { 0 };
    size_t npids = 0;
    for (size_t i = 0; stacks && i < stacks->n; i++) {
        const struct pp_json *fr = pp_json_get(&stacks->items[i], "frames");
        const char *leaf = fr && fr->n ? pp_json_str(&fr->items[fr->n - 1], "name") : NULL;
        double pid = pp_json_num(&stacks->items[i], "pid", 0);
        size_t j = 0;
        while (j < npids && pids[j] != pid)
            j++;
        if (leaf && !strcmp(leaf, "sum_worker") && j == npids && npids < 8)
            pids[npids++] = pid;
    }
    pp_measure(py, "processes with sum_worker", (double)npids, ">=", 2);
    pp_expect(py, npids >= 2, "sum_worker sampled in %zu process(es) only", npids);

    char *block = lines_block(rep.out, "sum_worker");
    pp_assert(py, block, "no sum_worker block in:\n%.2000s", rep.out);
    char head[1300];
    snprintf(head, sizeof head, "\nFunction: sum_worker at %s:%ld\nSamples: %.0f ",
             pp_script("mp_sum.py"), pp_script_line("mp_sum.py", "def sum_worker"),
             pp_json_num(fn, "total", -1));
    pp_expect(py, strncmp(block, head, strlen(head)) == 0,
              "block starts\n%.300s\nexpected\n%s", block, head);
    double self[256] = { 0 };
    json_line_self(doc, "sum_worker", self, 256);
    long first = pp_script_line("mp_sum.py", "def sum_worker"), hot = 0, last = 0;
    for (long l = first; l < 256; l++)
        last = self[l] ? l : last;
    for (long l = first; l <= last; l++) {
        double s, f;
        const char *src;
        int have = lines_row(block, l, &s, &f, &src);
        pp_expect(py, have, "no row for line %ld in:\n%s", l, block);
        if (!have)
            continue;
        if (self[l])
            pp_expect(py, s == self[l] && f == self[l],
                      "line %ld: %.0f samples, %.0f self; JSON %.0f", l, s, f, self[l]);
        if (self[l] > self[hot])
            hot = l;
    }
    pp_assert(py, hot > 0, "no line of sum_worker sampled");
    double s, f;
    const char *src;
    lines_row(block, hot, &s, &f, &src);
    pp_expect(py, strncmp(src, "            total += n", 22) == 0 ||
                  strncmp(src, "        for n in nums:", 22) == 0,
              "hottest line %ld shows source \"%.60s\"", hot, src);
    free(block);
}

PP_TEST(tools, lines_without_the_source_file_still_show_line_numbers_and_counts,
        .timeout = 120)
{
    const char *dir = pp_tmpdir();
    char copy[1100], cmd[2300];
    snprintf(copy, sizeof copy, "%s/gone.py", pp_tmpdir());
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", pp_script("burn.py"), copy);
    pp_assert(py, system(cmd) == 0, "%s failed", cmd);
    struct pp_result run;
    const char *args[] = { copy, "0.5", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "gone.py");
    unlink(copy);
    struct pp_result rep;
    pp_merge(&rep, "lines", NULL, dir);
    pp_assert(py, rep.exited && rep.code == 0, "pyprof-merge --format lines: %s",
              pp_describe(&rep));
    char *block = lines_block(rep.out, "burn");
    pp_assert(py, block, "no burn block in:\n%.2000s", rep.out);
    char note[1200];
    snprintf(note, sizeof note, "(source not readable: %s)", copy);
    pp_expect(py, strstr(block, note) != NULL, "no \"%s\" in:\n%s", note, block);
    const struct pp_json *doc = json_report(py, dir, "wall");
    double self[256] = { 0 }, shown = 0;
    json_line_self(doc, "burn", self, 256);
    for (long l = 1; l < 256; l++) {
        double s, f;
        const char *src;
        if (!self[l])
            continue;
        pp_expect(py, lines_row(block, l, &s, &f, &src) && f == self[l],
                  "line %ld: JSON %.0f self samples, lines report:\n%s", l, self[l], block);
        shown += self[l];
    }
    pp_expect(py, shown > 0, "burn has no sampled line");
    free(block);
}

/* ------------------------------------------------------------ progress */

PP_TEST(tools, progress_line_on_a_terminal_counts_files_samples_and_megabytes,
        .timeout = 200)
{
    const char *dir = profile_pool(py);
    const struct pp_json *doc = json_report(py, dir, "wall");
    char out[1100];
    snprintf(out, sizeof out, "%s/report.txt", dir);
    /* The line's delay set to 0: the test does not depend on the merge
     * taking a second. */
    const char *argv[] = { py->path, pp_script("pty_run.py"), getenv("PYPROF_TEST_MERGE"),
                           "-o", out, dir, NULL };
    const char *env[] = { "PYPROF_PROGRESS_DELAY=0", NULL };
    struct pp_result r;
    pp_run(&r, argv, env, 120, NULL, NULL);
    pp_assert(py, r.exited && r.code <= 1, "pyprof-merge on a terminal: %s; %.1000s",
              pp_describe(&r), r.out);
    size_t files = pp_count_files(dir, ".zst");
    double bytes = 0;
    for (size_t i = 0; i < files; i++) {
        struct stat st;
        if (stat(pp_find_file(dir, ".zst", i), &st) == 0)
            bytes += (double)st.st_size;
    }
    char want[200];
    snprintf(want, sizeof want, "\rpyprof-merge: %zu/%zu files, %.0f samples, %.1f MB read",
             files, files, pp_json_num(doc, "totals.samples_all_modes", -1), bytes / 1e6);
    pp_expect(py, strstr(r.out, want) != NULL, "terminal output has no \"%s\":\n%.500s",
              want + 1, r.out);
    pp_expect(py, strstr(r.out, "\r\033[K") != NULL, "the progress line is not erased");

    /* Not a terminal: no progress line. */
    struct pp_result plain;
    const char *penv[] = { "PYPROF_PROGRESS_DELAY=0", NULL };
    const char *pargv[] = { getenv("PYPROF_TEST_MERGE"), "-o", out, dir, NULL };
    pp_run(&plain, pargv, penv, 60, NULL, NULL);
    pp_expect(py, plain.exited && plain.code <= 1 && !strstr(plain.err, "files,"),
              "without a terminal: %s, stderr:\n%.500s", pp_describe(&plain), plain.err);
}
