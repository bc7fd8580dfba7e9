/*
 * json_report.h — the merged JSON report (pyprof-merge(1), JSON) of a
 * test's output directory and what the tests look up in it: a process by
 * pid or by how it started, and the stacks running a function.  Built on
 * harness.h's JSON reader; one copy for every test file.
 */
#ifndef PYPROF_TEST_JSON_REPORT_H
#define PYPROF_TEST_JSON_REPORT_H

#include "harness.h"

/* pyprof-merge --format json [--mode mode] dir, parsed.  Fails the test
 * unless pyprof-merge exited with a status of at most max_code (0: the
 * input must be whole; 1: a damaged file is reported, not fatal). */
const struct pp_json *pp_json_report(const struct pp_python *py, const char *dir,
                                     const char *mode, int max_code);

/* The first process with this pid (0: any) that was started_by this way
 * (NULL: any), or NULL. */
const struct pp_json *pp_json_process(const struct pp_json *doc, long pid,
                                      const char *started_by);

/* The report's "stacks" (the test fails when there are none). */
const struct pp_json *pp_json_stacks(const struct pp_python *py,
                                     const struct pp_json *doc);

/* Field what ("name", "file") of frame i of stack, outermost first; ""
 * when there is none. */
const char *pp_json_frame(const struct pp_json *stack, size_t i, const char *what);

/* Whether frame i of stack is a C function's pseudo-frame (pyprof(7),
 * "C calls"): file "~", named "<built-in method ...>" or "<method '...'
 * of '...' objects>". */
int pp_json_frame_is_c_call(const struct pp_json *stack, size_t i);

/* Whether stack (one element of "stacks") has a frame named fn. */
int pp_json_stack_has(const struct pp_json *stack, const char *fn);

/* Samples of the stacks of process pid that contain fn. */
double pp_json_samples_in(const struct pp_json *doc, long pid, const char *fn);

/* The pid of the first process with a stack containing fn, or -1. */
long pp_json_pid_running(const struct pp_json *doc, const char *fn);

/* Fails the test unless the text report of dir has the totals line
 * "  LABEL  N samples (" (label padded as the report pads it). */
void pp_expect_totals_line(const struct pp_python *py, const char *dir,
                           const char *label, double n);

/* Fails the test unless process pid of doc has a complete file of a fork
 * child that served at least min_ticks ticks, kept 0.8 to 1 sample a tick
 * of them (a few more where a tick's samples were cut from its counters),
 * and fn has at least share of a sample a tick: a child that burned in fn
 * for (share of) its sampled life.  The floors are relative to the ticks
 * served, which a loaded machine lowers alike.  what names the case in
 * the messages. */
void pp_expect_fork_child_burned(const struct pp_python *py,
                                 const struct pp_json *doc, long pid,
                                 const char *fn, double min_ticks,
                                 double share, const char *what);

#endif
