/*
 * output.h — one writer per report format, all reading the same model.
 */
#ifndef PYPROF_MERGE_OUTPUT_H
#define PYPROF_MERGE_OUTPUT_H

#include <stdio.h>

#include "model.h"

enum out_group { GROUP_NONE, GROUP_PROCESS, GROUP_THREAD, GROUP_HOST, GROUP_INTERP };

struct out_options {
    enum out_group group;
    size_t top;            /* rows of the top-function tables            */
};

int out_text(FILE *o, const struct model *m, const struct out_options *opt);
int out_collapsed(FILE *o, const struct model *m, const struct out_options *opt);
int out_json(FILE *o, const struct model *m, const struct out_options *opt);
/* out_pprof wants the model built with all_modes: it writes every mode. */
int out_pprof(FILE *o, const struct model *m, const struct out_options *opt);
int out_pstats(FILE *o, const struct model *m, const struct out_options *opt);
int out_lines(FILE *o, const struct model *m, const struct out_options *opt);
/* Time-ordered formats (timeline.h): one profile per process and thread. */
int out_speedscope(FILE *o, const struct model *m, const struct out_options *opt);
int out_gecko(FILE *o, const struct model *m, const struct out_options *opt);

/* The interactive page (out_html.c); the model must be built with
 * all_modes.  base, when not NULL, is the run `--diff` compares with. */
int out_html(FILE *o, const struct model *m, const struct out_options *opt);
int out_html_diff(FILE *o, const struct model *base, const struct model *m,
                  const struct out_options *opt);
/* The functions whose share changed most between base and m (out_diff.c). */
int out_diff_text(FILE *o, const struct model *base, const struct model *m,
                  const struct out_options *opt);

/* Shared by the writers (out_common.c). */
const char *out_mode_name(enum m_mode mode);

/* A thread's name as the reports show it: the program's, and the OS's in
 * brackets where that differs ("Thread-3 (worker) [OS: Thread-3 (work]");
 * "?" for a thread with no record. */
const char *out_thread_name(const struct m_thread *t, char *buf, size_t cap);
/* The extra root frames --group asks for, into a and b ("" if none);
 * returns how many (0, 1 or 2). */
int out_group_frames(const struct model *m, const struct m_stack *s,
                     enum out_group g, char *a, char *b, size_t cap);
/* s as a JSON string: escaped, and bytes that are not UTF-8 (a damaged
 * or forged file; CPython's own strings always are) as U+FFFD. */
void out_json_str(FILE *o, const char *s);
/* s on one line, control bytes escaped (model_escape_byte): for names
 * from the profiles in the text reports. */
void out_escaped(FILE *o, const char *s);
/* Seconds (ns) between a process's first and last known moment. */
double out_duration(const struct m_proc *p);
uint64_t out_duration_ns(const struct m_proc *p);

/* Samples by process and the interpreter they ran in (pyprof(7),
 * "Subinterpreters"), ordered by process, then id; *v is malloc'd (NULL
 * when there is nothing or no memory).  Returns how many. */
struct out_interp { uint32_t proc, id; uint64_t samples; };
size_t out_interps(const struct model *m, struct out_interp **v);
/* ns from the first process's start to the last one's end, that start
 * in *first (0 without processes). */
uint64_t out_tree_span(const struct model *m, uint64_t *first);
/* Length of the well-formed UTF-8 sequence at s (lead byte >= 0x80), or
 * 0 when it is not one. */
size_t out_utf8_len(const unsigned char *s);
/* qsort_r order of function ids (the model as argument): most self
 * samples first, then most total, then by name. */
int out_cmp_self(const void *a, const void *b, void *m);
/* Samples times each stack's process's interval, in ns. */
double out_stack_ns(const struct model *m, const struct m_stack *s, uint64_t count);

#endif
