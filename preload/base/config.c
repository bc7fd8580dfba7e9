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

#include "base/child_writes.h"
#include "base/config.h"
#include "pyprof/control.h"
#include "base/identity.h"
#include "base/log.h"
#include "pyprof/format.h"
#include "pyprof/unprofiled.h"

/* Not page-aligned, though its first part is all most processes write
 * (config.h): a page-aligned object would align the whole .bss, and the
 * variables at its start (the C runtime's, written at every exit) would
 * leave the data page the constructor writes anyway for a page of their
 * own. */
struct pp_config pp_config __attribute__((aligned(64)));

int config_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    return pp_parse_uint(s, lo, hi, out);
}

/* Bad values are said by the tree's first process only, or by pyprof-run
 * for the whole tree when it runs it: every process of the tree reads the
 * same environment, and the sh or make between them are not ours to
 * clutter (pyprof(7), ENVIRONMENT). */
PP_START_WRITES static int quiet;
PP_START_WRITES static int read_before;   /* pp_config_init ran in this image */

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

/* The value of name if it is set and fits in cap bytes, else NULL. */
static const char *string_var(const char *name, size_t cap)
{
    const char *s = getenv(name);
    if (s && strlen(s) >= cap) {
        if (!quiet)
            pp_warn("%s is longer than %zu bytes; ignored", name, cap - 1);
        return NULL;
    }
    return s;
}

/* Writes dst only if name is set: pp_config starts zeroed, and a string
 * left unset then costs no page (config.h).  Whether dst got a non-empty
 * value. */
static int copy_var(const char *name, char *dst, size_t cap)
{
    const char *s = string_var(name, cap);
    if (!s)
        return 0;
    strcpy(dst, s);
    return *s != 0;
}

/* Joins a relative PYPROF_OUT to the cwd so that descendants which chdir
 * (daemons, build tools) still write to the same place. */
static void absolute_out(void)
{
    char *dir = pp_out_dir();
    memcpy(pp_config.out_entry, PP_OUT_ENTRY_PREFIX, PP_OUT_ENTRY_PREFIX_LEN);
    /* Read in place, not copied to the stack first: a 4 KiB buffer there
     * is a page the process has not touched yet. */
    const char *rel = string_var("PYPROF_OUT", PATH_MAX);
    if (!rel || !*rel)
        rel = "pyprof.out";
    if (rel[0] == '/') {
        strcpy(dir, rel);
        return;
    }
    /* Joined by hand: every process of a tree does this as it starts, and
     * printf's pages are page faults it need not take (pyprof(7), "Fork"). */
    char cwd[PATH_MAX];
    int got = getcwd(cwd, sizeof cwd) != NULL;
    size_t c = got ? strlen(cwd) : 0, r = strlen(rel);
    if (c == 1)
        c = 0;                          /* "/": no "//" */
    if (!got || c + 1 + r >= PATH_MAX) {
        pp_warn("cannot make PYPROF_OUT=%s absolute; using it as given", rel);
        strcpy(dir, rel);
        return;
    }
    memcpy(dir, cwd, c);
    dir[c] = '/';
    memcpy(dir + c + 1, rel, r + 1);
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
    /* Once per image in the library; the unit tests read it again. */
    if (read_before)
        memset(&pp_config, 0, sizeof pp_config);
    read_before = 1;
    quiet = getenv(PP_ENV_RUN_SOCKET) != NULL || getenv(PP_ENV_PARENT) != NULL;
    /* The log settings first: the other parsers may want to complain. */
    /* A log file asked for is not the program's stderr: it gets the
     * errors unless PYPROF_LOG says otherwise. */
    unsigned level = copy_var("PYPROF_LOG_FILE", pp_config.log_file,
                              sizeof pp_config.log_file);
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
