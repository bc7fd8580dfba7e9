/*
 * report_of.h — for the unit tests: one report of profile files, written
 * into memory (the caller frees it).
 */
#ifndef PYPROF_TEST_REPORT_OF_H
#define PYPROF_TEST_REPORT_OF_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "model.h"
#include "output.h"

typedef int (*report_writer)(FILE *, const struct model *, const struct out_options *);

/* The report of a model the caller built (and frees), top 10 rows; its
 * length into *len unless len is NULL (binary formats hold NULs). */
static inline char *report_of_model(const struct model *m, enum out_group g,
                                    report_writer writer, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    cr_assert_not_null(o);
    struct out_options oo = { .group = g, .top = 10 };
    cr_assert_eq(writer(o, m, &oo), 0);
    fclose(o);
    if (len)
        *len = n;
    return buf;
}

/* The report of any number of files, as pyprof-merge would write it. */
static inline char *report_of_files_n(char **paths, size_t npaths, enum m_mode mode,
                                      enum out_group g, report_writer writer,
                                      size_t *len)
{
    struct m_options mo = { .mode = mode };
    struct model *m = model_build(paths, npaths, &mo, 2);
    cr_assert_not_null(m);
    char *buf = report_of_model(m, g, writer, len);
    model_free(m);
    return buf;
}

static inline char *report_of_files(char **paths, size_t npaths, enum m_mode mode,
                                    enum out_group g, report_writer writer)
{
    return report_of_files_n(paths, npaths, mode, g, writer, NULL);
}

static inline char *report_of(const char *path, enum m_mode mode, enum out_group g,
                              report_writer writer)
{
    char *paths[] = { (char *)path };
    return report_of_files(paths, 1, mode, g, writer);
}

#endif
