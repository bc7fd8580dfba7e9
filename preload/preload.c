/*
 * preload.c — the constructor that runs in every process of the tree.
 *
 * It must stay cheap and invisible in processes that are not CPython (sh,
 * make, cc...): read the PYPROF_* variables, note the library's own path
 * for the exec hooks, look for an interpreter, and stop there.  Only in a
 * supported CPython does it install the read guard, the exit hooks and
 * start the sampler thread.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "lifecycle.h"
#include "log.h"
#include "not_profiled.h"
#include "pyprof/format.h"
#include "pyvm.h"
#include "safe_read.h"
#include "state.h"
#include "zstd_lazy.h"

struct pp_state pp_state;
char **pp_argv;

/* Provided by the exec hooks (hooks_exec.c, only.c). */
void pp_hooks_exec_init(void) __attribute__((weak));
int pp_only_match(char *const *argv) __attribute__((weak));

uint64_t pp_new_uid(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != sizeof v || v == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
            ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&v;
    }
    return v ? v : 1;
}

/* The library's absolute path, resolved now while cwd is still the one
 * LD_PRELOAD was written against. */
static void find_own_path(void)
{
    Dl_info info;
    if (dladdr((void *)find_own_path, &info) && info.dli_fname &&
        realpath(info.dli_fname, pp_state.preload_path))
        return;
    pp_state.preload_path[0] = 0;
}

/* "<16 hex>:<digit>" -> parent uid and how we were started. */
static void read_parent(void)
{
    const char *s = getenv(PP_ENV_PARENT);
    pp_state.started_by = PP_START_ROOT;
    pp_state.parent_uid = 0;
    if (!s) {
        pp_state.inherited_parent[0] = 0;
        return;
    }
    snprintf(pp_state.inherited_parent, sizeof pp_state.inherited_parent,
             "%s", s);
    char *end;
    unsigned long long uid = strtoull(s, &end, 16);
    if (end != s + 16 || end[0] != ':' || end[1] < '0' || end[1] > '3' ||
        end[2]) {
        pp_warn("%s=%s is malformed; treating this process as a root",
                PP_ENV_PARENT, s);
        return;
    }
    pp_state.parent_uid = uid;
    pp_state.started_by = end[1] - '0';
}

/* The part of start-up that only a CPython process gets. */
static void start_python(void)
{
    if (pp_config.only[0] && pp_only_match && !pp_only_match(pp_argv)) {
        pp_log(2, "argv does not match PYPROF_ONLY; not profiled");
        return;
    }
    /* Only a process that will write a profile maps libzstd. */
    if (pp_zstd_load() != 0)
        return;
    pp_state.is_python = 1;
    pp_state.uid = pp_new_uid();
    if (safe_read_init() != 0) {
        pp_not_profiled("no safe way to read memory here");
        return;
    }
    pp_exit_init();
    pp_start(pp_state.started_by);
}

static int python_seen;     /* pyvm_detect said yes or "unsupported" once */

int pp_python_seen(void) { return python_seen; }

/* Looks for an interpreter in the process (constructor, and again after
 * a dlopen: hooks_dlopen.c).  The sampler then waits, as usual, for the
 * interpreter to be initialized. */
void pp_detect_python(void)
{
    int r = pyvm_detect();
    python_seen = r != 0;
    /* Said by the first Python of a tree only: its descendants get a
     * PYPROF_PARENT, and sh or make around it are not ours to clutter. */
    if (python_seen && pp_state.started_by == PP_START_ROOT)
        pp_config_report_bad_log();
    if (r == 1)
        start_python();
}

__attribute__((constructor))
static void pp_init(int argc, char **argv, char **envp)
{
    (void)argc; (void)envp;
    pp_argv = argv;
    pp_state.pid = getpid();
    pp_state.ppid = getppid();
    pp_config_load();
    find_own_path();
    read_parent();
    if (pp_hooks_exec_init)
        pp_hooks_exec_init();
    pp_fork_init();
    sigchain_resolve();

    pp_dlopen_init();
    pp_detect_python();
}
