/*
 * json_report.c — see json_report.h.
 */
#include <stdio.h>
#include <string.h>

#include "json_report.h"
#include "pyprof/c_call.h"

const struct pp_json *pp_json_report(const struct pp_python *py, const char *dir,
                                     const char *mode, int max_code)
{
    struct pp_result rep;
    const char *opts[] = { "--mode", mode, NULL };
    pp_merge(&rep, "json", mode ? opts : NULL, dir);
    pp_assert(py, rep.exited && rep.code <= max_code,
              "pyprof-merge --format json --mode %s: %s; stderr:\n%.2000s",
              mode ? mode : "(default)", pp_describe(&rep), rep.err);
    return pp_parse_json(py, &rep);
}

const struct pp_json *pp_json_process(const struct pp_json *doc, long pid,
                                      const char *started_by)
{
    const struct pp_json *procs = pp_json_get(doc, "processes");
    for (size_t i = 0; procs && i < procs->n; i++) {
        const struct pp_json *p = &procs->items[i];
        const char *by = pp_json_str(p, "started_by");
        if ((pid == 0 || (long)pp_json_num(p, "pid", -1) == pid) &&
            (!started_by || (by && !strcmp(by, started_by))))
            return p;
    }
    return NULL;
}

const struct pp_json *pp_json_stacks(const struct pp_python *py,
                                     const struct pp_json *doc)
{
    const struct pp_json *st = pp_json_get(doc, "stacks");
    pp_assert(py, st && st->type == PP_JARR, "no stacks in the JSON report");
    return st;
}

const char *pp_json_frame(const struct pp_json *stack, size_t i, const char *what)
{
    const struct pp_json *fr = pp_json_get(stack, "frames");
    if (!fr || fr->type != PP_JARR || i >= fr->n)
        return "";
    const char *s = pp_json_str(&fr->items[i], what);
    return s ? s : "";
}

int pp_json_frame_is_c_call(const struct pp_json *stack, size_t i)
{
    return pp_is_c_call(pp_json_frame(stack, i, "file"),
                        pp_json_frame(stack, i, "name"));
}

int pp_json_stack_has(const struct pp_json *stack, const char *fn)
{
    const struct pp_json *frames = pp_json_get(stack, "frames");
    for (size_t k = 0; frames && k < frames->n; k++) {
        const char *name = pp_json_str(&frames->items[k], "name");
        if (name && !strcmp(name, fn))
            return 1;
    }
    return 0;
}

double pp_json_samples_in(const struct pp_json *doc, long pid, const char *fn)
{
    const struct pp_json *stacks = pp_json_get(doc, "stacks");
    double total = 0;
    for (size_t i = 0; stacks && i < stacks->n; i++) {
        const struct pp_json *s = &stacks->items[i];
        if ((long)pp_json_num(s, "pid", -1) == pid && pp_json_stack_has(s, fn))
            total += pp_json_num(s, "count", 0);
    }
    return total;
}

long pp_json_pid_running(const struct pp_json *doc, const char *fn)
{
    const struct pp_json *stacks = pp_json_get(doc, "stacks");
    for (size_t i = 0; stacks && i < stacks->n; i++)
        if (pp_json_stack_has(&stacks->items[i], fn))
            return (long)pp_json_num(&stacks->items[i], "pid", -1);
    return -1;
}

void pp_expect_totals_line(const struct pp_python *py, const char *dir,
                           const char *label, double n)
{
    struct pp_result rep;
    pp_merge(&rep, "text", NULL, dir);
    char want[96];
    snprintf(want, sizeof want, "  %-16s%.0f samples (", label, n);
    pp_expect(py, strstr(rep.out, want), "the text report has no \"%s\" line:\n%.3000s",
              want, rep.out);
}

void pp_expect_fork_child_burned(const struct pp_python *py,
                                 const struct pp_json *doc, long pid,
                                 const char *fn, double min_ticks,
                                 double share, const char *what)
{
    const struct pp_json *p = pp_json_process(doc, pid, "fork");
    pp_assert(py, p, "%s: the child %ld has no file of a fork child", what, pid);
    const struct pp_json *c = pp_json_get(p, "complete");
    pp_expect(py, c && c->num == 1, "%s: the child's file is incomplete", what);
    double ticks = pp_json_num(p, "counters.ticks", -1);
    double kept = pp_json_num(p, "samples", 0);
    double burn = pp_json_samples_in(doc, pid, fn);
    char name[96];
    snprintf(name, sizeof name, "%s samples a tick", fn);
    pp_measure(py, name, ticks > 0 ? burn / ticks : 0, ">=", share);
    pp_expect(py, ticks >= min_ticks && burn >= share * ticks,
              "%s: %s has %g samples in the child's %g ticks (expected >= %g "
              "a tick, ticks >= %g)", what, fn, burn, ticks, share, min_ticks);
    pp_expect(py, kept >= 0.8 * ticks && kept <= ticks + 5,
              "%s: %g samples kept of the child's %g ticks", what, kept, ticks);
}
