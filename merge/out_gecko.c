/*
 * out_gecko.c — the Firefox Profiler's Gecko profile format (the one
 * Firefox itself writes, which the profiler's importer upgrades and
 * processes): an empty parent profile whose "processes" hold one profile
 * per pyprof process, each with its own start time and threads.  The
 * profiler draws every pid as its own process track and every thread
 * under it; each sample keeps its tick's time (timeline.h).
 *
 * A frame's location is "qualname (file:first line)", the form the
 * importer reads as a function with a file; the frame's line is the line
 * being executed.  Tables (strings, frames, stacks) are per thread as the
 * format has them, holding only what that thread's samples use.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pyprof/format.h"
#include "timeline.h"

/* Written as version 27 (the frame table without its optimizations
 * column); the importer upgrades every version up to its own. */
#define GECKO_VERSION 27

static const char categories[] =
    "[{\"name\": \"Python\", \"color\": \"yellow\", \"subcategories\": [\"Other\"]}, "
    "{\"name\": \"Other\", \"color\": \"grey\", \"subcategories\": [\"Other\"]}]";

/* One thread's tables: file node -> stack row + 1, file code -> string
 * + 1, and the rows in order.  Cleared after each thread by walking the
 * rows, not the whole maps. */
struct tables {
    uint32_t *stack_of, *string_of;
    uint32_t *stack_of_cut;       /* the same under <truncated> (TL_CUT)    */
    /* rows: file nodes, | TL_CUT under <truncated>, and TL_CUT alone for
     * the <truncated> row itself; codes: file codes, and TRUNC_CODE */
    uint32_t *rows, *codes;
    size_t nrows, rows_cap, ncodes, codes_cap;
    uint32_t *up;                 /* PP_MAX_DEPTH nodes being added        */
    uint32_t trunc_row, trunc_string;   /* + 1; 0: none yet              */
};

static int push(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        uint32_t *q = realloc(*a, c * sizeof *q);
        if (!q)
            return -1;
        *a = q;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

/* The string of the <truncated> row, in tb->codes. */
#define TRUNC_CODE UINT32_MAX
/* A marker's name in the string table: MARKER_CODE + its index in the
 * file's controls (sampling on demand: a window's start, a mark). */
#define MARKER_CODE 0xf0000000u

/* The stack row of an event's leaf (TL_CUT: under <truncated>), adding it
 * and its callers not yet in the table. */
static long stack_row(struct tables *tb, const struct rd_file *f, uint32_t event_leaf)
{
    int cut = (event_leaf & TL_CUT) != 0;
    uint32_t leaf = event_leaf & ~TL_CUT, *row_of = cut ? tb->stack_of_cut : tb->stack_of;
    if (cut && !tb->trunc_row) {
        if (push(&tb->rows, &tb->nrows, &tb->rows_cap, TL_CUT) != 0 ||
            push(&tb->codes, &tb->ncodes, &tb->codes_cap, TRUNC_CODE) != 0)
            return -1;
        tb->trunc_row = (uint32_t)tb->nrows;
        tb->trunc_string = (uint32_t)tb->ncodes;
    }
    size_t n = 0;
    for (uint32_t k = leaf; k && !row_of[k] && n < PP_MAX_DEPTH; k = f->nodes[k].parent)
        tb->up[n++] = k;
    while (n--) {
        uint32_t k = tb->up[n], code = f->nodes[k].code;
        if (push(&tb->rows, &tb->nrows, &tb->rows_cap, k | (cut ? TL_CUT : 0)) != 0)
            return -1;
        row_of[k] = (uint32_t)tb->nrows;
        if (!tb->string_of[code]) {
            if (push(&tb->codes, &tb->ncodes, &tb->codes_cap, code) != 0)
                return -1;
            tb->string_of[code] = (uint32_t)tb->ncodes;
        }
    }
    return (long)row_of[leaf] - 1;
}

static void location(FILE *o, const struct rd_file *f, uint32_t code)
{
    if (code == TRUNC_CODE) {
        out_json_str(o, M_TRUNCATED " (" M_TRUNCATED_FILE ":0)");
        return;
    }
    if (code >= MARKER_CODE) {
        const struct rd_control *c = &f->controls[code - MARKER_CODE];
        char name[PP_MAX_MARK_TEXT + 32];
        if (c->what == PP_CONTROL_REC_MARK)
            snprintf(name, sizeof name, "mark: %s", c->text);
        else
            snprintf(name, sizeof name, "sampling window %u", c->window);
        out_json_str(o, name);
        return;
    }
    const struct rd_code *k = &f->codes[code];
    const char *file = rd_string(f, k->filename);
    size_t need = strlen(rd_string(f, k->qualname)) + strlen(file) + 32;
    char *s = malloc(need);
    if (!s) {
        out_json_str(o, rd_string(f, k->qualname));
        return;
    }
    snprintf(s, need, "%s (%s:%u)", rd_string(f, k->qualname),
             *file ? file : "?", k->firstlineno);
    out_json_str(o, s);
    free(s);
}

static void write_tables(FILE *o, struct tables *tb, const struct rd_file *f)
{
    fputs(",\n     \"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, \"data\": [", o);
    for (size_t i = 0; i < tb->nrows; i++) {
        uint32_t v = tb->rows[i], k = v & ~TL_CUT, prefix = 0;
        if (v & TL_CUT) {
            uint32_t up = k ? f->nodes[k].parent : 0;
            prefix = !k ? 0 : up ? tb->stack_of_cut[up] : tb->trunc_row;
        } else {
            uint32_t up = f->nodes[k].parent;
            prefix = up ? tb->stack_of[up] : 0;
        }
        if (prefix)
            fprintf(o, "%s[%u,%zu]", i ? "," : "", prefix - 1, i);
        else
            fprintf(o, "%s[null,%zu]", i ? "," : "", i);
    }
    fputs("]},\n     \"frameTable\": {\"schema\": {\"location\": 0, \"relevantForJS\": 1, "
          "\"innerWindowID\": 2, \"implementation\": 3, \"line\": 4, \"column\": 5, "
          "\"category\": 6, \"subcategory\": 7}, \"data\": [", o);
    for (size_t i = 0; i < tb->nrows; i++) {
        if (tb->rows[i] == TL_CUT) {
            fprintf(o, "%s[%u,false,0,null,null,null,0,0]", i ? "," : "",
                    tb->trunc_string - 1);
            continue;
        }
        const struct rd_node *k = &f->nodes[tb->rows[i] & ~TL_CUT];
        fprintf(o, "%s[%u,false,0,null,", i ? "," : "", tb->string_of[k->code] - 1);
        if (k->line >= 0)
            fprintf(o, "%d", k->line);
        else
            fputs("null", o);
        fputs(",null,0,0]", o);
    }
    fputs("]},\n     \"stringTable\": [", o);
    for (size_t i = 0; i < tb->ncodes; i++) {
        fputs(i ? "," : "", o);
        location(o, f, tb->codes[i]);
    }
    fputc(']', o);
    for (size_t i = 0; i < tb->nrows; i++) {
        uint32_t v = tb->rows[i];
        if (v & TL_CUT)
            tb->stack_of_cut[v & ~TL_CUT] = 0;
        else
            tb->stack_of[v] = 0;
    }
    for (size_t i = 0; i < tb->ncodes; i++)
        if (tb->codes[i] != TRUNC_CODE && tb->codes[i] < MARKER_CODE)
            tb->string_of[tb->codes[i]] = 0;
    tb->nrows = tb->ncodes = 0;
    tb->trunc_row = tb->trunc_string = 0;
}

/* ms since the file's start, to the microsecond (0 before it). */
static double file_ms(const struct rd_file *f, uint64_t at_ns)
{
    return at_ns > f->start_ns ? (double)((at_ns - f->start_ns) / 1000) / 1e3 : 0;
}

/* Sampling on demand on the main thread's track: each window the file
 * sampled in as an interval marker (its start to its stop, or the file's
 * end), each mark as an instant one; named in the string table (they are
 * its first entries: written before any stack). */
static int markers(FILE *o, const struct rd_file *f, struct tables *tb)
{
    int any = 0;
    for (size_t i = 0; i < f->ncontrols; i++) {
        const struct rd_control *c = &f->controls[i];
        if (c->what == PP_CONTROL_REC_STOP)
            continue;
        if (push(&tb->codes, &tb->ncodes, &tb->codes_cap, MARKER_CODE + (uint32_t)i) != 0)
            return -1;
        fprintf(o, "%s[%zu,%.3f,", any++ ? "," : "", tb->ncodes - 1, file_ms(f, c->at_ns));
        if (c->what == PP_CONTROL_REC_MARK) {
            fputs("null,0,0,null]", o);
            continue;
        }
        uint64_t end = f->last_tick_ns;
        for (size_t k = i + 1; k < f->ncontrols; k++)
            if (f->controls[k].what == PP_CONTROL_REC_STOP &&
                f->controls[k].window == c->window) {
                end = f->controls[k].at_ns;
                break;
            }
        fprintf(o, "%.3f,1,0,null]", file_ms(f, end));
    }
    return 0;
}

static int thread(FILE *o, const struct tl_proc *t, size_t th, struct tables *tb,
                  const char *pname, int first)
{
    const struct m_proc *p = &t->m->procs[t->proc];
    const struct tl_thread *tt = th < t->nthreads ? &t->threads[th] : NULL;
    fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", o);
    char tn[600];
    /* The Firefox Profiler takes a thread named GeckoMain for its
     * process's main thread, draws the process track's graph from it and
     * labels the track with processName; any other name leaves the track
     * without a graph (pyprof-merge(1), "TIME-ORDERED FORMATS"). */
    if ((long long)p->threads[th].tid == (long long)p->f->pid)
        out_json_str(o, "GeckoMain");
    else
        out_json_str(o, out_thread_name(&p->threads[th], tn, sizeof tn));
    fputs(", \"processType\": \"default\", \"processName\": ", o);
    out_json_str(o, pname);
    fprintf(o, ", \"tid\": %u, \"pid\": %lld, \"registerTime\": %.3f, "
               "\"unregisterTime\": null,\n     \"markers\": {\"schema\": {\"name\": 0, "
               "\"startTime\": 1, \"endTime\": 2, \"phase\": 3, \"category\": 4, "
               "\"data\": 5}, \"data\": [",
            p->threads[th].tid, (long long)p->f->pid,
            tt ? (double)tt->start / 1e6 : 0.0);
    if ((long long)p->threads[th].tid == (long long)p->f->pid && markers(o, t->f, tb) != 0)
        return -1;
    fputs("]},\n     \"samples\": {\"schema\": {\"stack\": 0, "
          "\"time\": 1, \"eventDelay\": 2}, \"data\": [", o);
    struct tl_iter *it = tl_iter_new(t, th);
    struct tl_event e;
    if (!it)
        return -1;
    for (uint64_t i = 0; tl_iter_next(it, &e); i++) {
        fputs(i ? (i % 16 ? "," : ",\n      ") : "", o);
        long row = e.leaf ? stack_row(tb, t->f, e.leaf) : -1;
        if (e.leaf && row < 0) {
            free(it);
            return -1;
        }
        /* ms to the microsecond, in integers: printing doubles was most
         * of the time */
        unsigned long long us = (e.start + 500) / 1000;
        if (row >= 0)
            fprintf(o, "[%ld,%llu.%03llu,0]", row, us / 1000, us % 1000);
        else
            fprintf(o, "[null,%llu.%03llu,0]", us / 1000, us % 1000);
    }
    fputs("]}", o);
    int failed = it->failed;
    free(it);
    write_tables(o, tb, t->f);
    fputc('}', o);
    return failed ? -1 : 0;
}

static void meta(FILE *o, const struct model *m, size_t proc, int top)
{
    const struct m_proc *p = &m->procs[proc];
    fprintf(o, "{\"version\": %d, \"startTime\": %.3f, \"shutdownTime\": ", GECKO_VERSION,
            (double)p->f->start_ns / 1e6);
    if (!top && p->f->complete)
        fprintf(o, "%.3f", out_duration(p) * 1e3);
    else
        fputs("null", o);
    fprintf(o, ", \"categories\": %s, \"markerSchema\": []", categories);
    if (top)
        fprintf(o, ", \"interval\": %.3f, \"stackwalk\": 0, \"debug\": 0, \"gcpoison\": 0, "
                   "\"asyncstack\": 0, \"processType\": 0, \"presymbolicated\": true, "
                   "\"product\": \"pyprof-merge %s (%s)\"",
                (double)p->f->interval_ns / 1e6, PACKAGE_VERSION,
                out_mode_name(m->opt.mode));
    fputc('}', o);
}

static int process(FILE *o, const struct model *m, size_t i, struct tables *tb,
                   int first)
{
    const struct m_proc *p = &m->procs[i];
    struct tl_proc *t = tl_read(m, i);
    if (!t)
        return -1;
    size_t nn = t->f->nnodes ? t->f->nnodes : 1, nc = t->f->ncodes ? t->f->ncodes : 1;
    tb->stack_of = calloc(nn, sizeof *tb->stack_of);
    tb->stack_of_cut = calloc(nn, sizeof *tb->stack_of_cut);
    tb->string_of = calloc(nc, sizeof *tb->string_of);
    int r = tb->stack_of && tb->stack_of_cut && tb->string_of ? 0 : -1;
    char argv[256], pname[320];
    model_proc_label(p, argv, sizeof argv);
    snprintf(pname, sizeof pname, "%s (pid %lld)", argv, (long long)p->f->pid);
    fputs(first ? "\n  {\"meta\": " : ",\n  {\"meta\": ", o);
    meta(o, m, i, 0);
    fputs(", \"libs\": [], \"pausedRanges\": [], \"processes\": [], \"threads\": [", o);
    int firstt = 1;
    for (size_t th = 0; th < p->nthreads && !r; th++) {
        if (!p->threads[th].samples)
            continue;
        r = thread(o, t, th, tb, pname, firstt);
        firstt = 0;
    }
    fputs("]}", o);
    free(tb->stack_of);
    free(tb->stack_of_cut);
    free(tb->string_of);
    tl_free(t);
    return r;
}

int out_gecko(FILE *o, const struct model *m, const struct out_options *opt)
{
    (void)opt;
    struct tables tb = { 0 };
    tb.up = malloc(PP_MAX_DEPTH * sizeof *tb.up);
    if (!tb.up)
        return -1;
    fputs("{\"meta\": ", o);
    meta(o, m, 0, 1);
    fputs(",\n \"libs\": [], \"pausedRanges\": [], \"threads\": [],\n \"processes\": [", o);
    int r = 0, first = 1;
    for (size_t i = 0; i < m->nprocs && !r; i++) {
        if (!m->procs[i].samples)
            continue;
        r = process(o, m, i, &tb, first);
        first = 0;
    }
    fputs("]}\n", o);
    free(tb.up);
    free(tb.rows);
    free(tb.codes);
    return r;
}
