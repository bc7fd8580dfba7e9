/*
 * config.c — PYPROF_* environment -> pp_config, once, in the constructor.
 * A bad value gets the default, and one message if PYPROF_LOG asks for
 * it: the application must run whatever the user typed (pyprof(7),
 * ENVIRONMENT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "pyprof/control.h"
#include "base/identity.h"
#include "base/log.h"
#include "pyprof/format.h"
#include "pyprof/unprofiled.h"

struct pp_config pp_config;

int config_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    return pp_parse_uint(s, lo, hi, out);
}

/* Bad values are said by the tree's first process only, or by pyprof-run
 * for the whole tree when it runs it: every process of the tree reads the
 * same environment, and the sh or make between them are not ours to
 * clutter (pyprof(7), ENVIRONMENT). */
static int quiet;

static unsigned uint_var(const char *name, unsigned lo, unsigned hi,
                         unsigned def)
{
    const char *s = getenv(name);
    unsigned v;
    if (!s)
        return def;
    if (config_parse_uint(s, lo, hi, &v) == 0)
        return v;
    if (!quiet)
        pp_warn("%s=%s is not a number in [%u, %u]; using %u", name, s, lo, hi, def);
    return def;
}

static void copy_var(const char *name, char *dst, size_t cap)
{
    const char *s = getenv(name);
    dst[0] = 0;
    if (!s)
        return;
    if (strlen(s) >= cap) {
        if (!quiet)
            pp_warn("%s is longer than %zu bytes; ignored", name, cap - 1);
        return;
    }
    strcpy(dst, s);
}

/* Joins a relative PYPROF_OUT to the cwd so that descendants which chdir
 * (daemons, build tools) still write to the same place. */
static void absolute_out(void)
{
    char rel[PATH_MAX];
    copy_var("PYPROF_OUT", rel, sizeof rel);
    if (!rel[0])
        strcpy(rel, "pyprof.out");
    if (rel[0] == '/') {
        strcpy(pp_config.out_dir, rel);
        return;
    }
    /* Joined by hand: every process of a tree does this as it starts, and
     * printf's pages are page faults it need not take (pyprof(7), "Fork"). */
    char cwd[PATH_MAX];
    int got = getcwd(cwd, sizeof cwd) != NULL;
    size_t c = got ? strlen(cwd) : 0, r = strlen(rel);
    if (c == 1)
        c = 0;                          /* "/": no "//" */
    if (!got || c + 1 + r >= sizeof pp_config.out_dir) {
        pp_warn("cannot make PYPROF_OUT=%s absolute; using it as given", rel);
        strcpy(pp_config.out_dir, rel);
        return;
    }
    memcpy(pp_config.out_dir, cwd, c);
    pp_config.out_dir[c] = '/';
    memcpy(pp_config.out_dir + c + 1, rel, r + 1);
}

void pp_config_report_bad_log(void)
{
    static int said;
    /* The first Python of a tree only: its descendants get a
     * PYPROF_PARENT, and sh or make around it are not ours to clutter. */
    if (said || !pp_config.log_bad[0] || pp_state.started_by != PP_START_ROOT ||
        quiet)
        return;
    said = 1;
    pp_say("PYPROF_LOG=%s is not 0, 1 or 2; using %d", pp_config.log_bad,
           pp_config.log_level);
}

void pp_config_init(void)
{
    quiet = getenv(PP_ENV_RUN_SOCKET) != NULL || getenv(PP_ENV_PARENT) != NULL;
    /* The log settings first: the other parsers may want to complain. */
    copy_var("PYPROF_LOG_FILE", pp_config.log_file, sizeof pp_config.log_file);
    /* A log file asked for is not the program's stderr: it gets the
     * errors unless PYPROF_LOG says otherwise. */
    unsigned level = pp_config.log_file[0] ? 1 : 0;
    const char *log = getenv("PYPROF_LOG");
    if (log && config_parse_uint(log, 0, 2, &level) != 0)
        snprintf(pp_config.log_bad, sizeof pp_config.log_bad, "%s", log);
    pp_config.log_level = (int)level;
    copy_var(PP_ENV_RUN_SOCKET, pp_config.run_socket, sizeof pp_config.run_socket);
    pp_config.hz = uint_var("PYPROF_HZ", 1, PP_MAX_HZ, PP_DEFAULT_HZ);
    pp_config.follow = (int)uint_var("PYPROF_FOLLOW", 0, 1, 1);
    pp_config.flush_ms = uint_var("PYPROF_FLUSH_MS", 1, 60000, PP_DEFAULT_FLUSH_MS);
    pp_config.segment_s = uint_var("PYPROF_SEGMENT_S", 0, PP_MAX_SEGMENT_S, 0);
    pp_config.segment_kb = uint_var("PYPROF_SEGMENT_KB", 0, PP_MAX_SEGMENT_KB, 0);
    copy_var("PYPROF_ONLY", pp_config.only, sizeof pp_config.only);
    copy_var(PP_ENV_CONTROL, pp_config.control, sizeof pp_config.control);
    absolute_out();
}
