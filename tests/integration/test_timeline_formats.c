/*
 * test_timeline_formats.c — --format speedscope and --format gecko on a
 * real tree of processes (a multiprocessing pool: four processes, the
 * parent with threads of its own), in wall and cpu mode, each checked by
 * what reads it and against the JSON report of the same files:
 *
 *   speedscope: valid against the JSON schema the speedscope package
 *   ships (ajv, from /var/cache/pyprof-npm, or SKIP); speedscope's own
 *   app from that package imports it in headless chromium and lists every
 *   profile (or SKIP without chromium); one profile per
 *   process and thread with that thread's samples; every function's
 *   self and total samples, summed over the profiles, those of the JSON
 *   report; weights tile each profile from startValue to endValue.
 *
 *   gecko: the Firefox Profiler publishes no validator, so the Gecko
 *   profile format is checked field by field as its importer reads it
 *   (pyprof-merge(1) says so): meta, per-process sub-profiles, per-thread
 *   schemas and tables, every index in range, sample times in order,
 *   locations in the importer's "name (file:line)" form, each process's
 *   main thread (and only it) named GeckoMain; then the same totals as
 *   above.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define HZ 200

/* ------------------------------------------------------------ totals */

struct fn { char *key; long self, total; };     /* key: name\tfile\tline */
struct th { long long pid; long tid; long samples; };

struct totals {
    struct fn *fn; size_t nfn;
    struct th *th; size_t nth;
    long samples;
};

static struct fn *fn_of(struct totals *t, const char *key)
{
    for (size_t i = 0; i < t->nfn; i++)
        if (!strcmp(t->fn[i].key, key))
            return &t->fn[i];
    t->fn = realloc(t->fn, (t->nfn + 1) * sizeof *t->fn);
    t->fn[t->nfn] = (struct fn){ strdup(key), 0, 0 };
    return &t->fn[t->nfn++];
}

static void add_thread(struct totals *t, long long pid, long tid, long samples)
{
    for (size_t i = 0; i < t->nth; i++)
        if (t->th[i].pid == pid && t->th[i].tid == tid) {
            t->th[i].samples += samples;
            return;
        }
    t->th = realloc(t->th, (t->nth + 1) * sizeof *t->th);
    t->th[t->nth++] = (struct th){ pid, tid, samples };
}

static char *key_of(const char *name, const char *file, long line)
{
    size_t n = strlen(name) + strlen(file) + 32;
    char *k = malloc(n);
    snprintf(k, n, "%s\t%s\t%ld", name, file, line);
    return k;
}

/* One sample's stack (keys, outermost first): total once per function. */
static void add_sample(struct totals *t, char **keys, size_t n)
{
    t->samples++;
    for (size_t i = 0; i < n; i++) {
        int again = 0;
        for (size_t j = 0; j < i; j++)
            again |= !strcmp(keys[j], keys[i]);
        if (!again)
            fn_of(t, keys[i])->total++;
    }
    fn_of(t, keys[n - 1])->self++;
}

static void from_json(const struct pp_python *py, const struct pp_json *doc,
                      struct totals *t)
{
    const struct pp_json *procs = pp_json_get(doc, "processes");
    pp_assert(py, procs, "JSON report without processes");
    for (size_t i = 0; i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i], *ths = pp_json_get(p, "threads");
        for (size_t k = 0; ths && k < ths->n; k++)
            if (pp_json_num(&ths->items[k], "samples", 0) > 0)
                add_thread(t, (long long)pp_json_num(p, "pid", 0),
                           (long)pp_json_num(&ths->items[k], "tid", 0),
                           (long)pp_json_num(&ths->items[k], "samples", 0));
    }
    const struct pp_json *fns = pp_json_get(doc, "functions");
    for (size_t i = 0; fns && i < fns->n; i++) {
        const struct pp_json *f = &fns->items[i];
        char *k = key_of(pp_json_str(f, "name"), pp_json_str(f, "file"),
                         (long)pp_json_num(f, "line", 0));
        struct fn *x = fn_of(t, k);
        x->self = (long)pp_json_num(f, "self", 0);
        x->total = (long)pp_json_num(f, "total", 0);
        free(k);
    }
    t->samples = (long)pp_json_num(doc, "totals.samples", -1);
}

static void same_totals(const struct pp_python *py, const char *what,
                        const struct totals *got, const struct totals *json)
{
    pp_expect(py, got->samples == json->samples, "%s: %ld samples, JSON report %ld",
              what, got->samples, json->samples);
    pp_expect(py, got->nth == json->nth, "%s: %zu threads with samples, JSON report %zu",
              what, got->nth, json->nth);
    for (size_t i = 0; i < json->nth; i++) {
        long n = -1;
        for (size_t k = 0; k < got->nth; k++)
            if (got->th[k].pid == json->th[i].pid && got->th[k].tid == json->th[i].tid)
                n = got->th[k].samples;
        pp_expect(py, n == json->th[i].samples, "%s: pid %lld tid %ld has %ld samples, "
                  "JSON report %ld", what, json->th[i].pid, json->th[i].tid, n,
                  json->th[i].samples);
    }
    size_t checked = 0;
    for (size_t i = 0; i < json->nfn; i++) {
        const struct fn *j = &json->fn[i], *g = NULL;
        for (size_t k = 0; k < got->nfn; k++)
            if (!strcmp(got->fn[k].key, j->key))
                g = &got->fn[k];
        pp_expect(py, g && g->self == j->self && g->total == j->total,
                  "%s: %s self/total %ld/%ld, JSON report %ld/%ld", what, j->key,
                  g ? g->self : -1, g ? g->total : -1, j->self, j->total);
        checked += j->total > 0;
    }
    pp_expect(py, checked >= 3, "%s: only %zu functions compared", what, checked);
}

/* The JSON report of dir in mode, into want, and the report in format,
 * into r; returns the JSON document. */
static const struct pp_json *merge_both(const struct pp_python *py, const char *dir,
                                        const char *mode, const char *format,
                                        struct pp_result *r, struct totals *want)
{
    const char *opts[] = { "--mode", mode, NULL };
    struct pp_result js;
    pp_merge(&js, "json", opts, dir);
    pp_merge(r, format, opts, dir);
    pp_assert(py, js.exited && js.code == 0 && r->exited && r->code == 0,
              "--mode %s: json %s, %s %s: %s", mode, pp_describe(&js), format,
              pp_describe(r), r->err);
    const struct pp_json *doc = pp_parse_json(py, &js);
    from_json(py, doc, want);
    return doc;
}

/* ------------------------------------------------------------ speedscope */

static const char *npm_dir(void)
{
    const char *d = getenv("PYPROF_NPM_DIR");
    return d && *d ? d : "/var/cache/pyprof-npm";
}

/* The schema check by ajv in node, or a SKIP line when node or the
 * packages are missing. */
static void schema_check(const struct pp_python *py, const char *path)
{
    char schema[4096], ajv[4096], script[4096];
    snprintf(schema, sizeof schema,
             "%s/node_modules/speedscope/dist/release/file-format-schema.json", npm_dir());
    snprintf(ajv, sizeof ajv, "%s/node_modules/ajv/package.json", npm_dir());
    snprintf(script, sizeof script, "%s/../js/validate-speedscope.mjs", pp_script(""));
    struct pp_result r;
    const char *ver[] = { "node", "--version", NULL };
    if (access(schema, R_OK) || access(ajv, R_OK) ||
        (pp_run(&r, ver, NULL, 30, NULL, NULL), !r.exited || r.code)) {
        fprintf(stderr, "SKIP: speedscope schema check: needs node and %s/node_modules "
                        "(ajv, speedscope) from tests/package.json (check.sh)\n", npm_dir());
        return;
    }
    const char *argv[] = { "node", script, npm_dir(), path, NULL };
    pp_run(&r, argv, NULL, 60, NULL, NULL);
    pp_expect(py, r.exited && r.code == 0 && strstr(r.out, "valid"),
              "speedscope's schema rejects %s (%s):\n%s%s", path, pp_describe(&r),
              r.out, r.err);
}

/* speedscope's own app (the package's index.html) imports the file in
 * headless chromium and lists every profile, showing the active one. */
static void app_check(const struct pp_python *py, const char *path,
                      const struct pp_json *doc)
{
    char app[4096], script[4096];
    snprintf(app, sizeof app, "%s/node_modules/speedscope/dist/release/index.html",
             npm_dir());
    snprintf(script, sizeof script, "%s/../js/open-in-speedscope.mjs", pp_script(""));
    struct pp_result r;
    const char *ver[] = { "chromium", "--version", NULL };
    if (access(app, R_OK) || (pp_run(&r, ver, NULL, 60, NULL, NULL), !r.exited || r.code)) {
        fprintf(stderr, "SKIP: speedscope app check: needs Debian's chromium and %s "
                        "(tests/package.json, check.sh)\n", app);
        return;
    }
    const char *argv[] = { "node", script, npm_dir(), path, NULL };
    pp_run(&r, argv, NULL, 120, NULL, NULL);
    pp_assert(py, r.exited && r.code == 0, "speedscope's app: %s\n%s", pp_describe(&r),
              r.err);
    const struct pp_json *profiles = pp_json_get(doc, "profiles");
    char shown[64];
    snprintf(shown, sizeof shown, "(%.0f/%zu)",
             pp_json_num(doc, "activeProfileIndex", -1) + 1, profiles->n);
    pp_expect(py, strstr(r.out, shown), "speedscope's app does not show profile %s:\n%s",
              shown, r.out);
    for (size_t i = 0; i < profiles->n; i++) {
        const char *name = pp_json_str(&profiles->items[i], "name");
        pp_expect(py, name && strstr(r.out, name), "speedscope's app does not list %s:\n%s",
                  name, r.out);
    }
}

static void from_speedscope(const struct pp_python *py, const struct pp_json *doc,
                            struct totals *t)
{
    pp_assert(py, !strcmp(pp_json_str(doc, "$schema"),
                          "https://www.speedscope.app/file-format-schema.json"),
              "no speedscope $schema");
    const struct pp_json *frames = pp_json_get(doc, "shared.frames"),
                         *profiles = pp_json_get(doc, "profiles");
    pp_assert(py, frames && profiles && profiles->n, "no frames or profiles");
    char **keys = calloc(frames->n, sizeof *keys);
    for (size_t i = 0; i < frames->n; i++)
        keys[i] = key_of(pp_json_str(&frames->items[i], "name"),
                         pp_json_str(&frames->items[i], "file"),
                         (long)pp_json_num(&frames->items[i], "line", -1));
    size_t active = (size_t)pp_json_num(doc, "activeProfileIndex", -1);
    pp_expect(py, active < profiles->n, "activeProfileIndex %zu of %zu", active,
              profiles->n);
    char **stack = calloc(8192, sizeof *stack);
    for (size_t i = 0; i < profiles->n; i++) {
        const struct pp_json *p = &profiles->items[i];
        const struct pp_json *s = pp_json_get(p, "samples"), *w = pp_json_get(p, "weights");
        const char *name = pp_json_str(p, "name");
        long long pid = -1;
        long tid = -1;
        const char *at = name ? strstr(name, "(tid ") : NULL;
        pp_assert(py, name && sscanf(name, "pid %lld", &pid) == 1 && at &&
                      sscanf(at, "(tid %ld", &tid) == 1, "profile name %s", name);
        pp_assert(py, !strcmp(pp_json_str(p, "type"), "sampled") &&
                      !strcmp(pp_json_str(p, "unit"), "nanoseconds"),
                  "profile %s is not sampled in nanoseconds", name);
        pp_assert(py, s && w && s->n == w->n, "profile %s: samples and weights differ",
                  name);
        double sum = 0;
        long n = 0;
        for (size_t k = 0; k < s->n; k++) {
            const struct pp_json *st = &s->items[k];
            pp_assert(py, w->items[k].num >= 0, "negative weight");
            sum += w->items[k].num;
            if (!st->n)
                continue;           /* time with no sample: a gap */
            for (size_t d = 0; d < st->n && d < 8192; d++) {
                size_t f = (size_t)st->items[d].num;
                pp_assert(py, f < frames->n, "frame %zu of %zu", f, frames->n);
                stack[d] = keys[f];
            }
            add_sample(t, stack, st->n < 8192 ? st->n : 8192);
            n++;
        }
        add_thread(t, pid, tid, n);
        double span = pp_json_num(p, "endValue", 0) - pp_json_num(p, "startValue", 0);
        pp_expect(py, sum == span, "profile %s: weights add up to %.0f ns, "
                  "endValue - startValue is %.0f", name, sum, span);
    }
    free(stack);
}

static void speedscope_case(const struct pp_python *py, const char *dir,
                            const char *mode)
{
    struct pp_result ss;
    struct totals want = { 0 }, got = { 0 };
    merge_both(py, dir, mode, "speedscope", &ss, &want);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.speedscope.json", dir, mode);
    FILE *f = fopen(path, "w");
    pp_assert(py, f && fwrite(ss.out, 1, ss.out_len, f) == ss.out_len && !fclose(f),
              "cannot write %s", path);
    schema_check(py, path);
    const struct pp_json *doc = pp_parse_json(py, &ss);
    if (!strcmp(mode, "wall"))
        app_check(py, path, doc);
    from_speedscope(py, doc, &got);
    /* every process and the parent's pool threads have wall samples; in
     * cpu mode, those that ran */
    pp_measure(py, strcmp(mode, "wall") ? "cpu: threads with samples" : "wall: threads with samples",
               (double)want.nth, ">=", strcmp(mode, "wall") ? 1 : 5);
    pp_expect(py, want.nth >= (strcmp(mode, "wall") ? 1u : 5u),
              "--mode %s: the pool gave only %zu threads with samples", mode, want.nth);
    char what[64];
    snprintf(what, sizeof what, "speedscope --mode %s", mode);
    same_totals(py, what, &got, &want);
}

static void pool(const struct pp_python *py, const char *dir)
{
    struct pp_result run;
    const char *args[] = { pp_script("mp_sum.py"), "fork", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "mp_sum.py fork");
    pp_assert(py, pp_count_files(dir, ".zst") == 4, "%zu profiles, expected 4",
              pp_count_files(dir, ".zst"));
}

PP_TEST(timeline_formats, speedscope_is_valid_and_has_the_json_reports_totals,
        .timeout = 180)
{
    const char *dir = pp_tmpdir();
    pool(py, dir);
    speedscope_case(py, dir, "wall");
    speedscope_case(py, dir, "cpu");
}

/* ------------------------------------------------------------ gecko */

static const struct pp_json *need(const struct pp_python *py, const struct pp_json *j,
                                  const char *path, enum pp_json_type type,
                                  const char *where)
{
    const struct pp_json *v = pp_json_get(j, path);
    pp_assert(py, v && v->type == type, "%s: %s missing or of the wrong type", where,
              path);
    return v;
}

/* A table's schema: each name at the index the format gives it. */
static void schema(const struct pp_python *py, const struct pp_json *table,
                   const char *const *names, const char *where)
{
    const struct pp_json *s = need(py, table, "schema", PP_JOBJ, where);
    for (size_t i = 0; names[i]; i++)
        pp_assert(py, pp_json_num(s, names[i], -1) == (double)i,
                  "%s: schema.%s is not %zu", where, names[i], i);
    need(py, table, "data", PP_JARR, where);
}

static int null_or_num(const struct pp_json *v)
{
    return v->type == PP_JNULL || v->type == PP_JNUM;
}

static const char *const marker_cols[] = { "name", "startTime", "endTime", "phase",
                                           "category", "data", NULL };
static const char *const sample_cols[] = { "stack", "time", "eventDelay", NULL };
static const char *const frame_cols[] = { "location", "relevantForJS", "innerWindowID",
                                          "implementation", "line", "column",
                                          "category", "subcategory", NULL };
static const char *const stack_cols[] = { "prefix", "frame", NULL };

/* "name (file:line)" as the importer reads a function with a file: into
 * a key; NULL if the location does not have that form. */
static char *location_key(const char *loc)
{
    size_t n = strlen(loc);
    if (n < 6 || loc[n - 1] != ')')
        return NULL;
    const char *colon = loc + n - 2;
    while (colon > loc && colon[0] >= '0' && colon[0] <= '9')
        colon--;
    if (*colon != ':' || colon == loc + n - 2)
        return NULL;
    const char *open = NULL;
    for (const char *p = loc; (p = strstr(p, " (")) && p < colon; p++)
        open = p;
    if (!open || open + 2 >= colon)
        return NULL;
    char name[1024], file[2048];
    snprintf(name, sizeof name, "%.*s", (int)(open - loc), loc);
    snprintf(file, sizeof file, "%.*s", (int)(colon - open - 2), open + 2);
    return key_of(name, file, strtol(colon + 1, NULL, 10));
}

static void gecko_thread(const struct pp_python *py, const struct pp_json *th,
                         const struct pp_json *cats, long long pid, struct totals *t)
{
    const char *where = pp_json_str(th, "name");
    pp_assert(py, where, "a thread without a name");
    need(py, th, "processType", PP_JSTR, where);
    need(py, th, "processName", PP_JSTR, where);
    pp_assert(py, pp_json_num(th, "pid", -1) == (double)pid, "%s: pid differs within "
              "one process's profile", where);
    long tid = (long)need(py, th, "tid", PP_JNUM, where)->num;
    /* the main thread is GeckoMain, which the profiler draws the
     * process track's graph from, and no other thread is */
    pp_assert(py, (tid == pid) == !strcmp(where, "GeckoMain"),
              "thread %s (tid %ld) of pid %lld: the main thread, and only it, is "
              "named GeckoMain", where, tid, pid);
    char tag[64];
    snprintf(tag, sizeof tag, "(pid %lld)", pid);
    pp_assert(py, strstr(pp_json_str(th, "processName"), tag), "%s: processName \"%s\" "
              "does not say %s", where, pp_json_str(th, "processName"), tag);
    double reg = need(py, th, "registerTime", PP_JNUM, where)->num;
    pp_assert(py, null_or_num(pp_json_get(th, "unregisterTime")), "%s: unregisterTime",
              where);
    schema(py, need(py, th, "markers", PP_JOBJ, where), marker_cols, where);
    const struct pp_json *samples = need(py, th, "samples", PP_JOBJ, where);
    const struct pp_json *frames = need(py, th, "frameTable", PP_JOBJ, where);
    const struct pp_json *stacks = need(py, th, "stackTable", PP_JOBJ, where);
    const struct pp_json *strings = need(py, th, "stringTable", PP_JARR, where);
    schema(py, samples, sample_cols, where);
    schema(py, frames, frame_cols, where);
    schema(py, stacks, stack_cols, where);
    samples = pp_json_get(samples, "data");
    frames = pp_json_get(frames, "data");
    stacks = pp_json_get(stacks, "data");
    char **fkey = calloc(frames->n + 1, sizeof *fkey);
    for (size_t i = 0; i < strings->n; i++)
        pp_assert(py, strings->items[i].type == PP_JSTR, "%s: stringTable[%zu]", where, i);
    for (size_t i = 0; i < frames->n; i++) {
        const struct pp_json *r = &frames->items[i];
        pp_assert(py, r->type == PP_JARR && r->n == 8, "%s: frame %zu", where, i);
        size_t loc = (size_t)r->items[0].num;
        pp_assert(py, r->items[0].type == PP_JNUM && loc < strings->n, "%s: frame %zu: "
                  "location %zu of %zu strings", where, i, loc, strings->n);
        pp_assert(py, r->items[1].type == PP_JBOOL && null_or_num(&r->items[4]) &&
                      null_or_num(&r->items[5]), "%s: frame %zu: field types", where, i);
        size_t cat = (size_t)r->items[6].num;
        pp_assert(py, r->items[6].type == PP_JNUM && cat < cats->n &&
                      r->items[7].num <
                          (double)pp_json_len(&cats->items[cat], "subcategories"),
                  "%s: frame %zu: category", where, i);
        fkey[i] = location_key(strings->items[loc].str);
        pp_assert(py, fkey[i], "%s: location %s is not name (file:line)", where,
                  strings->items[loc].str);
    }
    for (size_t i = 0; i < stacks->n; i++) {
        const struct pp_json *r = &stacks->items[i];
        pp_assert(py, r->type == PP_JARR && r->n == 2 && null_or_num(&r->items[0]) &&
                      (r->items[0].type == PP_JNULL || r->items[0].num < (double)i) &&
                      r->items[1].type == PP_JNUM && r->items[1].num < (double)frames->n,
                  "%s: stack %zu: prefix before it, frame in the table", where, i);
    }
    char **stack = calloc(stacks->n + 1, sizeof *stack);
    double last = reg;
    long n = 0;
    for (size_t i = 0; i < samples->n; i++) {
        const struct pp_json *r = &samples->items[i];
        pp_assert(py, r->type == PP_JARR && r->n == 3 && null_or_num(&r->items[0]) &&
                      r->items[1].type == PP_JNUM && null_or_num(&r->items[2]),
                  "%s: sample %zu", where, i);
        pp_assert(py, r->items[1].num >= last, "%s: sample %zu at %.3f ms, before %.3f",
                  where, i, r->items[1].num, last);
        last = r->items[1].num;
        if (r->items[0].type == PP_JNULL)
            continue;
        size_t s = (size_t)r->items[0].num, depth = 0;
        pp_assert(py, s < stacks->n, "%s: sample %zu: stack %zu of %zu", where, i, s,
                  stacks->n);
        for (const struct pp_json *k = &stacks->items[s];; k = &stacks->items[s]) {
            stack[depth++] = fkey[(size_t)k->items[1].num];
            if (k->items[0].type == PP_JNULL || depth > stacks->n)
                break;
            s = (size_t)k->items[0].num;
        }
        for (size_t a = 0; a < depth / 2; a++) {
            char *x = stack[a];
            stack[a] = stack[depth - 1 - a];
            stack[depth - 1 - a] = x;
        }
        add_sample(t, stack, depth);
        n++;
    }
    add_thread(t, pid, tid, n);
    free(stack);
}

static void from_gecko(const struct pp_python *py, const struct pp_json *doc,
                       struct totals *t, size_t *nprocs, size_t *mains)
{
    const struct pp_json *meta = need(py, doc, "meta", PP_JOBJ, "profile");
    double version = need(py, meta, "version", PP_JNUM, "meta")->num;
    pp_assert(py, version >= 1 && version <= 36,
              "meta.version %g: the importer knows 1 to 36", version);
    need(py, meta, "startTime", PP_JNUM, "meta");
    pp_assert(py, need(py, meta, "interval", PP_JNUM, "meta")->num > 0, "interval");
    pp_assert(py, null_or_num(pp_json_get(meta, "shutdownTime")), "meta.shutdownTime");
    const char *flags[] = { "stackwalk", "debug", "gcpoison", "asyncstack", NULL };
    for (size_t i = 0; flags[i]; i++)
        pp_assert(py, pp_json_num(meta, flags[i], -1) == 0 ||
                      pp_json_num(meta, flags[i], -1) == 1, "meta.%s", flags[i]);
    need(py, meta, "processType", PP_JNUM, "meta");
    need(py, meta, "markerSchema", PP_JARR, "meta");
    const struct pp_json *cats = need(py, meta, "categories", PP_JARR, "meta");
    for (size_t i = 0; i < cats->n; i++) {
        need(py, &cats->items[i], "name", PP_JSTR, "category");
        need(py, &cats->items[i], "color", PP_JSTR, "category");
        pp_assert(py, pp_json_len(&cats->items[i], "subcategories") >= 1 &&
                      pp_json_len(&cats->items[i], "subcategories") != (size_t)-1,
                  "category %zu without subcategories", i);
    }
    need(py, doc, "libs", PP_JARR, "profile");
    need(py, doc, "pausedRanges", PP_JARR, "profile");
    pp_assert(py, need(py, doc, "threads", PP_JARR, "profile")->n == 0,
              "the parent profile has threads of its own");
    const struct pp_json *procs = need(py, doc, "processes", PP_JARR, "profile");
    *nprocs = procs->n;
    for (size_t i = 0; i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        const struct pp_json *pm = need(py, p, "meta", PP_JOBJ, "sub-profile");
        pp_assert(py, pp_json_num(pm, "version", -1) == version, "sub-profile version");
        need(py, pm, "startTime", PP_JNUM, "sub-profile meta");
        pp_assert(py, null_or_num(pp_json_get(pm, "shutdownTime")), "shutdownTime");
        need(py, pm, "categories", PP_JARR, "sub-profile meta");
        need(py, pm, "markerSchema", PP_JARR, "sub-profile meta");
        need(py, p, "libs", PP_JARR, "sub-profile");
        need(py, p, "pausedRanges", PP_JARR, "sub-profile");
        need(py, p, "processes", PP_JARR, "sub-profile");
        const struct pp_json *ths = need(py, p, "threads", PP_JARR, "sub-profile");
        pp_assert(py, ths->n > 0, "sub-profile %zu has no threads", i);
        long long pid = (long long)pp_json_num(&ths->items[0], "pid", -1);
        for (size_t k = 0; k < ths->n; k++) {
            gecko_thread(py, &ths->items[k], cats, pid, t);
            *mains += pp_json_num(&ths->items[k], "tid", -1) == (double)pid;
        }
    }
}

static void gecko_case(const struct pp_python *py, const char *dir, const char *mode)
{
    struct pp_result gk;
    struct totals want = { 0 }, got = { 0 };
    const struct pp_json *doc = merge_both(py, dir, mode, "gecko", &gk, &want);
    size_t nprocs = 0, mains = 0;
    from_gecko(py, pp_parse_json(py, &gk), &got, &nprocs, &mains);
    size_t sampled = 0;
    const struct pp_json *procs = pp_json_get(doc, "processes");
    for (size_t i = 0; i < procs->n; i++)
        sampled += pp_json_num(&procs->items[i], "samples", 0) > 0;
    pp_measure(py, strcmp(mode, "wall") ? "cpu: processes with samples" :
               "wall: processes with samples", (double)sampled, ">=", strcmp(mode, "wall") ? 1 : 4);
    pp_expect(py, nprocs == sampled && sampled >= (strcmp(mode, "wall") ? 1u : 4u),
              "--mode %s: %zu process sub-profiles, %zu processes with samples", mode,
              nprocs, sampled);
    /* in wall mode every process's main thread has samples: each
     * track has its graph */
    pp_expect(py, strcmp(mode, "wall") || mains == nprocs,
              "--mode wall: %zu process sub-profiles, %zu with a GeckoMain thread", nprocs,
              mains);
    char what[64];
    snprintf(what, sizeof what, "gecko --mode %s", mode);
    same_totals(py, what, &got, &want);
}

PP_TEST(timeline_formats, gecko_has_the_documented_structure_and_the_json_reports_totals,
        .timeout = 180)
{
    const char *dir = pp_tmpdir();
    pool(py, dir);
    gecko_case(py, dir, "wall");
    gecko_case(py, dir, "cpu");
}
