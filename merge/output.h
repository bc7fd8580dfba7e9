/*
 * output.h — one writer per report format, all reading the same model.
 */
#ifndef PYPROF_MERGE_OUTPUT_H
#define PYPROF_MERGE_OUTPUT_H

#include <stdio.h>

#include "model.h"

enum out_group { GROUP_NONE, GROUP_PROCESS, GROUP_THREAD };

struct out_options {
    enum out_group group;
    size_t top;            /* rows of the top-function tables            */
};

int out_text(FILE *o, const struct model *m, const struct out_options *opt);
int out_collapsed(FILE *o, const struct model *m, const struct out_options *opt);
int out_json(FILE *o, const struct model *m, const struct out_options *opt);

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
/* The extra root frames --group asks for, into a and b ("" if none);
 * returns how many (0, 1 or 2). */
int out_group_frames(const struct model *m, const struct m_stack *s,
                     enum out_group g, char *a, char *b, size_t cap);
/* Seconds between a process's first and last known moment. */
double out_duration(const struct m_proc *p);
/* s as a JSON string: escaped, non-UTF-8 bytes as U+FFFD (out_json.c). */
void out_json_str(FILE *o, const char *s);

#endif
