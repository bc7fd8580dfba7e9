/*
 * config.h — PYPROF_* environment, parsed once in the constructor into
 * static storage (the exec hooks read it from a vfork child, so nothing
 * here may be allocated on the heap).  Bad values fall back to the
 * default, with one message if PYPROF_LOG asks for it.
 */
#ifndef PYPROF_CONFIG_H
#define PYPROF_CONFIG_H

#include <limits.h>

#include "pyprof/settings.h"

#define PP_OUT_ENTRY_PREFIX "PYPROF_OUT="
#define PP_OUT_ENTRY_PREFIX_LEN (sizeof PP_OUT_ENTRY_PREFIX - 1)

/* What every process writes comes first, so that a program that is not
 * Python (every exec of a build's tree) writes one page of it: the
 * numbers, the socket, and the output directory as the environment entry
 * a child gets.  The other strings are written only when set. */
struct pp_config {
    unsigned hz;
    int      follow;              /* PYPROF_FOLLOW                          */
    unsigned flush_ms;
    unsigned segment_s;           /* PYPROF_SEGMENT_S, 0 = not cut by time  */
    unsigned segment_kb;          /* PYPROF_SEGMENT_KB, 0 = not by size     */
    int      log_level;           /* PYPROF_LOG                             */
    char     log_bad[64];         /* a PYPROF_LOG that is not 0-2, or ""    */
    char     run_socket[100];     /* PYPROF_RUN_SOCKET, "" = none           */
    /* "PYPROF_OUT=" and the absolute output directory (pp_out_dir) */
    char     out_entry[PP_OUT_ENTRY_PREFIX_LEN + PATH_MAX];
    char     only[1024];          /* PYPROF_ONLY glob, "" = all             */
    char     log_file[PATH_MAX];  /* PYPROF_LOG_FILE, "" = stderr           */
    char     control[PATH_MAX];   /* PYPROF_CONTROL, "" = none              */
};

extern struct pp_config pp_config;

/* The absolute output directory. */
static inline char *pp_out_dir(void)
{
    return pp_config.out_entry + PP_OUT_ENTRY_PREFIX_LEN;
}

/* Reads the environment into pp_config.  Makes PYPROF_OUT absolute against
 * the current directory (the first profiled process's cwd). */
void pp_config_init(void);

/* Says once, whatever the log level, that PYPROF_LOG was not understood,
 * if this process has no profiled ancestor: called where a process is
 * found to be a Python (pyprof(7), PYPROF_LOG). */
void pp_config_report_bad_log(void);

/* Parses an unsigned decimal in [lo, hi]; returns 0 on success. */
int config_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

#endif
