/*
 * constructor.c — the constructor that runs in every process of the tree.
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
#include <unistd.h>

#include "base/config.h"
#include "base/identity.h"
#include "base/log.h"
#include "guard/safe_read.h"
#include "guard/sigchain.h"
#include "hooks/hooks.h"
#include "pyprof/format.h"
#include "python/pyvm.h"
#include "record/not_profiled.h"
#include "record/zstd_lazy.h"
#include "sample/lifecycle.h"
#include "sample/sampler.h"

/* The library's absolute path, resolved now while cwd is still the one
 * LD_PRELOAD was written against.  A path the loader already has whole
 * is used where the loader keeps it (its name of the library, which
 * lives as long as the library, that is, as long as the process): no
 * realpath, whose system calls (one per component) every exec of the
 * tree would pay, and no copy into a page of our own, a page fault of
 * its own (pyprof(7), "Timing and cost").  A child's LD_PRELOAD names
 * the file just as well through a link. */
static void find_own_path(void)
{
    Dl_info info;
    if (dladdr((void *)find_own_path, &info) && info.dli_fname) {
        if (info.dli_fname[0] == '/' && strlen(info.dli_fname) < 4096) {
            pp_state.preload_path = (char *)info.dli_fname;
            return;
        }
        if (realpath(info.dli_fname, pp_state.preload_path))
            return;
    }
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
    /* By hand, as every descendant reads it: no printf or strtoull pages
     * for its start to fault in (pyprof(7), "Fork"). */
    size_t n = strnlen(s, sizeof pp_state.inherited_parent - 1);
    memcpy(pp_state.inherited_parent, s, n);
    pp_state.inherited_parent[n] = 0;
    uint64_t uid = 0;
    int ok = n == 18;
    for (int i = 0; ok && i < 16; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        ok = d >= 0;
        uid = uid << 4 | (uint64_t)(d & 15);
    }
    if (!ok || s[16] != ':' || s[17] < '0' || s[17] > '3') {
        pp_warn("%s=%s is malformed; treating this process as a root",
                PP_ENV_PARENT, s);
        return;
    }
    pp_state.parent_uid = uid;
    pp_state.started_by = s[17] - '0';
}

static void finish_by_signal(int sig) { pp_finish(PP_END_SIGNAL, sig); }

/* The part of start-up that only a CPython process gets (STARTING). */
static int start_python(void)
{
    if (pp_config.only[0] && !only_match(pp_state.argv)) {
        pp_log(2, "argv does not match PYPROF_ONLY; not profiled");
        return -1;
    }
    /* Only a process that will write a profile maps libzstd. */
    if (zstd_lazy_init() != 0)
        return -1;
    pp_state.uid = pp_new_uid();
    sigchain_callbacks(finish_by_signal, sampler_on_this_thread);
    if (safe_read_init() != 0) {
        pp_not_profiled("no safe way to read memory here");
        return -1;
    }
    hooks_exit_init();
    pp_start(pp_state.started_by);
    return 0;
}

/* Looks for an interpreter in the process (constructor, and again after
 * a dlopen: hooks/dlopen.c).  The sampler then waits, as usual, for the
 * interpreter to be initialized.  A CPython that cannot be read (a
 * version not known, a failed check) leaves its not-profiled record at
 * once, unless PYPROF_ONLY leaves it out anyway (pyprof(7), DIAGNOSTICS). */
static void detect_python(void)
{
    int r = pyvm_detect();
    /* A CPython that cannot be read is a Python now; one that can is one
     * when its interpreter is first ready (the sampler says it then): a
     * program that links libpython without starting it is not. */
    if (r < 0)
        pp_config_report_bad_log();
    if (r == 0 || !pp_profile_found(r))
        return;
    if (r < 0) {
        if (!pp_config.only[0] || only_match(pp_state.argv))
            pp_not_profiled("%s", pyvm_refusal());
        return;
    }
    if (start_python() != 0)
        pp_not_started();
}

__attribute__((constructor))
static void pp_init(int argc, char **argv, char **envp)
{
    (void)argc; (void)envp;
    pp_state.argv = argv;
    pp_state.pid = getpid();
    pp_state.ppid = getppid();
    pp_config_init();
    find_own_path();
    read_parent();
    hooks_exec_init();
    hooks_popen_init();
    hooks_fork_init();
    sigchain_init();

    hooks_dlopen_init(detect_python);
    detect_python();
}
