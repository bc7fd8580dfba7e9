/*
 * pyprof-merge — merges any number of pyprof files into one report.
 * Exit status: 0 everything read, 1 some input damaged but a report was
 * made, 2 usage error or nothing readable.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "model.h"
#include "output.h"
#include "progress.h"
#include "reader.h"
#include "unprofiled.h"

static void usage(FILE *o)
{
    fputs("usage: pyprof-merge [options] FILE|DIR...\n"
          "  -f, --format F     text (default), collapsed, json, html, pprof,\n"
          "                     pstats, lines, speedscope, gecko\n"
          "  -m, --mode M       wall (default), cpu, gil\n"
          "  -p, --pid PID      only this process\n"
          "      --exclude-idle drop samples of threads that were not on a CPU\n"
          "      --hide-c-calls leave out the C functions Python frames called\n"
          "                     (3.14+): their time stays on the calling line\n"
          "  -g, --group G      none (default), process, thread, host,\n"
          "                     interpreter: extra root frames\n"
          "      --host NAME    only the processes of this host\n"
          "      --interpreter ID  only what ran in this interpreter (main or\n"
          "                     a subinterpreter's id)\n"
          "      --fold-workers fold processes with the same argv and parent\n"
          "      --since T      only samples from T on: a duration after the\n"
          "                     run's start (90s, 1m30s) or a time (18:04:05,\n"
          "                     2026-11-29 18:04:05, @SECONDS)\n"
          "      --until T      only samples before T (the same forms)\n"
          "      --last D       only the last D of the run (60s, 5m)\n"
          "      --window N     only sampling window N of a tree started paused\n"
          "                     (pyprof-run --paused, --control start/stop)\n"
          "  -t, --top N        rows in the top-function tables, functions of\n"
          "                     --format lines (default 20)\n"
          "  -j, --jobs N       reader threads (default: online CPUs)\n"
          "  -o, --output FILE  write the report to FILE\n"
          "      --diff BASE NEW  what changed from BASE to NEW (text or html)\n"
          "      --live DIR     a live view, in the terminal, of a tree writing\n"
          "                     into DIR (q quits)\n"
          "  -h, --help         this text\n"
          "  -V, --version      version\n", o);
}

struct list { char **v; size_t n, cap; };

static void push(struct list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) {
            fputs("pyprof-merge: out of memory\n", stderr);
            exit(2);
        }
    }
    l->v[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory contributes every *.zst in it, in name order, and its
 * not-profiled records (pyprof(5)) to *records. */
static int expand(const char *arg, struct list *out, struct list *records)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        fprintf(stderr, "pyprof-merge: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        push(unprofiled_is_record_name(arg) ? records : out, strdup(arg));
        return 0;
    }
    DIR *d = opendir(arg);
    if (!d) {
        fprintf(stderr, "pyprof-merge: %s: %s\n", arg, strerror(errno));
        return -1;
    }
    size_t from = out->n, from_records = records->n;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        int record = unprofiled_is_record_name(e->d_name);
        if (record || (n > 4 && !strcmp(e->d_name + n - 4, ".zst"))) {
            char *p = malloc(strlen(arg) + n + 2);
            if (!p)
                break;
            sprintf(p, "%s/%s", arg, e->d_name);
            push(record ? records : out, p);
        }
    }
    closedir(d);
    qsort(out->v + from, out->n - from, sizeof *out->v, cmp_str);
    qsort(records->v, records->n, sizeof *records->v, cmp_str);
    /* A directory of records alone (pyprof-run's, of records it could not
     * write into the output directory) is no surprise. */
    if (out->n == from && records->n == from_records)
        fprintf(stderr, "pyprof-merge: %s: no .zst files\n", arg);
    return 0;
}

/* Reads the not-profiled records; a damaged one is named on stderr and
 * makes the exit status 1, like a damaged profile. */
static int read_records(const struct list *paths, struct unprofiled **out, size_t *n)
{
    int bad = 0;
    *n = 0;
    *out = paths->n ? calloc(paths->n, sizeof **out) : NULL;
    if (paths->n && !*out) {
        fputs("pyprof-merge: out of memory\n", stderr);
        exit(2);
    }
    for (size_t i = 0; i < paths->n; i++) {
        char err[256];
        if (i == UNPROF_MAX_RECORDS)
            fprintf(stderr, "pyprof-merge: only the first %d not-profiled records "
                            "are read\n", UNPROF_MAX_RECORDS);
        if (i >= UNPROF_MAX_RECORDS)
            ;
        else if (unprofiled_read(paths->v[i], &(*out)[*n], err, sizeof err) == 0)
            (*n)++;
        else {
            fprintf(stderr, "pyprof-merge: %s: %s\n", paths->v[i], err);
            bad = 1;
        }
        free(paths->v[i]);
    }
    free(paths->v);
    return bad;
}

/* --diff BASE NEW: two models, one report of what changed. */
static int run_diff(char **args, int n, const char *format, struct m_options *mo,
                    const struct out_options *oo, int jobs, const char *output)
{
    int html = !strcmp(format, "html");
    if (n != 2 || (!html && strcmp(format, "text"))) {
        fputs(n != 2 ? "pyprof-merge: --diff takes two inputs: BASE NEW\n"
                     : "pyprof-merge: --diff writes text or html\n", stderr);
        return 2;
    }
    struct model *m[2];
    int damaged = 0;
    for (int i = 0; i < 2; i++) {
        struct list files = { 0 }, records = { 0 };
        damaged |= expand(args[i], &files, &records) != 0;
        /* A diff compares profiles: not-profiled records are not its subject. */
        for (size_t k = 0; k < records.n; k++)
            free(records.v[k]);
        free(records.v);
        m[i] = files.n ? model_build(files.v, files.n, mo, jobs) : NULL;
        for (size_t k = 0; k < files.n; k++)
            free(files.v[k]);
        free(files.v);
        if (m[i])
            for (size_t k = 0; k < m[i]->nproblems; k++)
                fprintf(stderr, "pyprof-merge: %s: %s (recovered %llu samples)\n",
                        m[i]->problems[k].file, m[i]->problems[k].error,
                        (unsigned long long)m[i]->problems[k].recovered);
        if (!m[i] || model_empty(m[i])) {
            fprintf(stderr, "pyprof-merge: %s: nothing could be read\n", args[i]);
            return 2;
        }
        damaged |= model_damaged(m[i]);
    }
    FILE *o = stdout;
    if (output && !(o = fopen(output, "w"))) {
        fprintf(stderr, "pyprof-merge: %s: %s\n", output, strerror(errno));
        return 2;
    }
    int r = html ? out_html_diff(o, m[0], m[1], oo) : out_diff_text(o, m[0], m[1], oo);
    if ((o != stdout ? fclose(o) : fflush(o)) != 0 || r != 0) {
        fprintf(stderr, "pyprof-merge: cannot write the report\n");
        return 2;
    }
    model_free(m[0]);
    model_free(m[1]);
    return damaged ? 1 : 0;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        { "format", required_argument, 0, 'f' },
        { "mode", required_argument, 0, 'm' },
        { "pid", required_argument, 0, 'p' },
        { "host", required_argument, 0, 'H' },
        { "interpreter", required_argument, 0, 'N' },
        { "exclude-idle", no_argument, 0, 'I' },
        { "group", required_argument, 0, 'g' },
        { "fold-workers", no_argument, 0, 'F' },
        { "top", required_argument, 0, 't' },
        { "jobs", required_argument, 0, 'j' },
        { "output", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },
        { "version", no_argument, 0, 'V' },
        { "diff", no_argument, 0, 'D' },
        { "since", required_argument, 0, 'S' },
        { "until", required_argument, 0, 'U' },
        { "last", required_argument, 0, 'L' },
        { "live", no_argument, 0, 'W' },
        { "window", required_argument, 0, 'X' },
        { "hide-c-calls", no_argument, 0, 'C' },
        { 0, 0, 0, 0 },
    };
    const char *format = "text", *output = NULL;
    struct m_options mo = { .mode = MODE_WALL };
    struct out_options oo = { .group = GROUP_NONE, .top = 20 };
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int c, diff = 0, saw_since = 0, saw_last = 0, live = 0, saw_window = 0;
    char *end, why[256];
    struct m_window window = { { W_NONE, 0 }, { W_NONE, 0 } };
    while ((c = getopt_long(argc, argv, "f:m:p:g:t:j:o:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'm':
            if (!strcmp(optarg, "wall")) mo.mode = MODE_WALL;
            else if (!strcmp(optarg, "cpu")) mo.mode = MODE_CPU;
            else if (!strcmp(optarg, "gil")) mo.mode = MODE_GIL;
            else if (!strcmp(optarg, "exception")) mo.mode = MODE_EXC;
            else if (!strcmp(optarg, "tasks")) mo.mode = MODE_TASKS;
            else {
                fprintf(stderr, "pyprof-merge: --mode %s: expected wall, cpu, gil, "
                        "exception or tasks\n", optarg);
                return 2;
            }
            break;
        case 'p':
            mo.pid = strtol(optarg, &end, 10);
            if (*end || mo.pid <= 0) {
                fprintf(stderr, "pyprof-merge: --pid %s: not a process id\n", optarg);
                return 2;
            }
            break;
        case 'I': mo.exclude_idle = 1; break;
        case 'C': rd_hide_c_calls(1); break;
        case 'H': mo.host = optarg; break;
        case 'N':
            if (!strcmp(optarg, "main")) {
                mo.interp = 1;
                break;
            }
            mo.interp = optarg[0] >= '0' && optarg[0] <= '9' ?
                        strtol(optarg, &end, 10) + 1 : 0;
            if (mo.interp <= 0 || *end || mo.interp > (long)RD_MAX_INTERP_ID + 1) {
                fprintf(stderr, "pyprof-merge: --interpreter %s: expected main or an "
                                "interpreter id\n", optarg);
                return 2;
            }
            break;
        case 'g':
            if (!strcmp(optarg, "none")) oo.group = GROUP_NONE;
            else if (!strcmp(optarg, "process")) oo.group = GROUP_PROCESS;
            else if (!strcmp(optarg, "thread")) oo.group = GROUP_THREAD;
            else if (!strcmp(optarg, "host")) oo.group = GROUP_HOST;
            else if (!strcmp(optarg, "interpreter")) oo.group = GROUP_INTERP;
            else {
                fprintf(stderr, "pyprof-merge: --group %s: expected none, process, thread, "
                                "host or interpreter\n", optarg);
                return 2;
            }
            break;
        case 'F': mo.fold_workers = 1; break;
        case 't':
            /* strtoul would take "-3" as a huge count */
            oo.top = optarg[0] >= '0' && optarg[0] <= '9' ?
                     (size_t)strtoul(optarg, &end, 10) : 0;
            if (!oo.top || *end) {
                fprintf(stderr, "pyprof-merge: --top %s: expected a positive number\n", optarg);
                return 2;
            }
            break;
        case 'j':
            jobs = strtol(optarg, &end, 10);
            if (*end || jobs < 1) {
                fprintf(stderr, "pyprof-merge: --jobs %s: expected a positive number\n", optarg);
                return 2;
            }
            break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': puts("pyprof-merge " PACKAGE_VERSION); return 0;
        case 'D': diff = 1; break;
        case 'W': live = 1; break;
        case 'X': {
            long nw = optarg[0] >= '1' && optarg[0] <= '9' ? strtol(optarg, &end, 10) : 0;
            if (nw <= 0 || *end || nw > 1000000000L) {
                fprintf(stderr, "pyprof-merge: --window %s: expected a window's number "
                                "(1 for the first start)\n", optarg);
                return 2;
            }
            window.from = window.until = (struct w_bound){ W_CONTROL, (uint64_t)nw };
            saw_window = 1;
            break;
        }
        case 'S':
        case 'U':
            if (window_bound(optarg, c == 'S' ? &window.from : &window.until,
                             why, sizeof why) != 0) {
                fprintf(stderr, "pyprof-merge: --%s: %s\n", c == 'S' ? "since" : "until",
                        why);
                return 2;
            }
            saw_since |= c == 'S';
            break;
        case 'L':
            saw_last = 1;
            if (window_duration(optarg, &window.from.ns, why, sizeof why) != 0) {
                fprintf(stderr, "pyprof-merge: --last: %s\n", why);
                return 2;
            }
            window.from.kind = W_BEFORE_END;
            break;
        default: usage(stderr); return 2;
        }
    }
    int (*writer)(FILE *, const struct model *, const struct out_options *) = NULL;
    if (!strcmp(format, "text")) writer = out_text;
    else if (!strcmp(format, "collapsed")) writer = out_collapsed;
    else if (!strcmp(format, "json")) writer = out_json;
    else if (!strcmp(format, "html")) writer = out_html, mo.all_modes = 1;
    else if (!strcmp(format, "pprof")) writer = out_pprof, mo.all_modes = 1;
    else if (!strcmp(format, "pstats")) writer = out_pstats;
    else if (!strcmp(format, "lines")) writer = out_lines;
    else if (!strcmp(format, "speedscope")) writer = out_speedscope;
    else if (!strcmp(format, "gecko")) writer = out_gecko;
    else {
        fprintf(stderr, "pyprof-merge: --format %s: this build writes text, collapsed, "
                        "json, html, pprof, pstats, lines, speedscope and gecko\n", format);
        return 2;
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (saw_window && (saw_since || saw_last || window.until.kind != W_CONTROL)) {
        fputs("pyprof-merge: --window is a window of its own: not with --since, "
              "--until or --last\n", stderr);
        return 2;
    }
    if (saw_since && saw_last) {
        fputs("pyprof-merge: --since and --last both say where the window "
              "starts: give one\n", stderr);
        return 2;
    }
    if (window_set(&window)) {
        uint64_t lo, hi;
        window_on_host(&window, 0, UINT64_MAX / 2, &lo, &hi);
        if (window.from.kind == window.until.kind && window.from.kind != W_BEFORE_END &&
            window.from.kind != W_CONTROL && hi <= lo) {
            fputs("pyprof-merge: the window ends before it starts (--until is not "
                  "after --since)\n", stderr);
            return 2;
        }
        mo.window = &window;
    }
    if (live) {
        struct stat st;
        if (argc - optind != 1 || stat(argv[optind], &st) != 0 || !S_ISDIR(st.st_mode)) {
            fputs("pyprof-merge: --live takes one directory: the one the tree writes "
                  "into (PYPROF_OUT, pyprof-run -o)\n", stderr);
            return 2;
        }
        return live_view(argv[optind], oo.top);
    }
    if (diff)
        return run_diff(argv + optind, argc - optind, format, &mo, &oo, (int)jobs, output);
    struct list files = { 0 }, records = { 0 };
    int bad_args = 0;
    for (int i = optind; i < argc; i++)
        bad_args |= expand(argv[i], &files, &records) != 0;
    struct unprofiled *unprof = NULL;
    size_t nunprof = 0;
    bad_args |= read_records(&records, &unprof, &nunprof) != 0;
    unprofiled_dedupe(unprof, &nunprof);
    if (!files.n) {
        fputs("pyprof-merge: no input files\n", stderr);
        for (size_t i = 0; i < nunprof; i++) {
            char what[1400];
            unprofiled_describe(&unprof[i], what, sizeof what);
            fprintf(stderr, "pyprof-merge: not profiled: %s\n", what);
        }
        return 2;
    }
    /* PYPROF_PROGRESS_DELAY: seconds before the progress line shows. */
    struct m_progress progress = { 0 };
    const char *delay = getenv("PYPROF_PROGRESS_DELAY");
    mo.progress = &progress;
    struct progress *line = progress_start(&progress, files.n,
                                           delay && *delay ? strtod(delay, NULL) : 1.0);
    struct model *m = model_build(files.v, files.n, &mo, (int)jobs);
    progress_stop(line);
    if (!m) {
        fputs("pyprof-merge: out of memory\n", stderr);
        return 2;
    }
    if (m->window_missing) {
        fprintf(stderr, "pyprof-merge: no file of the input sampled in window %llu "
                        "(pyprof-run --control DIR start makes the next one)\n",
                (unsigned long long)window.from.ns);
        return 2;
    }
    m->unprofiled = unprof;
    m->nunprofiled = nunprof;
    for (size_t i = 0; i < m->nproblems; i++)
        fprintf(stderr, "pyprof-merge: %s: %s (recovered %llu samples)\n",
                m->problems[i].file, m->problems[i].error,
                (unsigned long long)m->problems[i].recovered);
    if (model_empty(m)) {
        fputs("pyprof-merge: nothing could be read\n", stderr);
        return 2;
    }
    if (mo.pid) {
        size_t k = 0;
        while (k < m->nprocs && m->procs[k].f->pid != mo.pid)
            k++;
        if (k == m->nprocs) {
            fprintf(stderr, "pyprof-merge: --pid %ld: no process of the input has "
                            "that pid (the input's:", mo.pid);
            for (size_t i = 0; i < m->nprocs && i < 20; i++)
                fprintf(stderr, " %lld", (long long)m->procs[i].f->pid);
            fprintf(stderr, "%s)\n", m->nprocs > 20 ? " ..." : "");
            return 2;
        }
    }
    if (mo.host) {
        size_t k = 0;
        while (k < m->nhosts && strcmp(m->hosts[k], mo.host))
            k++;
        if (k == m->nhosts) {
            fprintf(stderr, "pyprof-merge: --host %s: no process of the input ran "
                            "there (the input's hosts:", mo.host);
            for (size_t i = 0; i < m->nhosts && i < 20; i++)
                fprintf(stderr, " %s", m->hosts[i]);
            fprintf(stderr, "%s)\n", m->nhosts > 20 ? " ..." : "");
            return 2;
        }
    }
    FILE *o = stdout;
    if (output && !(o = fopen(output, "w"))) {
        fprintf(stderr, "pyprof-merge: %s: %s\n", output, strerror(errno));
        return 2;
    }
    int r = writer(o, m, &oo);
    if ((o != stdout ? fclose(o) : fflush(o)) != 0 || r != 0) {
        fprintf(stderr, "pyprof-merge: cannot write the report\n");
        return 2;
    }
    int damaged = model_damaged(m) || bad_args;
    model_free(m);
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(files.v);
    return damaged ? 1 : 0;
}
