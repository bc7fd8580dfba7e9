/*
 * exit.c — every way out of a Python process finishes its file.
 *
 *   exit() and return from main  -> on_exit handler (gets the status)
 *   the last thread ending without
 *   exit()                        -> glibc's exit(0), as above (the sampler
 *                                    is not counted: uncounted.h)
 *   os._exit / _exit / _Exit      -> interposed here (no atexit runs)
 *   fatal signals with SIG_DFL    -> sigchain.c finishes, then dies the same way
 *   exec                          -> exec.c via pp_before_exec
 *   SIGKILL                       -> nothing to do: the periodic flush bounds
 *                                    the loss to PYPROF_FLUSH_MS
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/identity.h"
#include "hooks/hooks.h"
#include "pyprof/format.h"
#include "sample/lifecycle.h"
#include "sample/sampler.h"

typedef void (*exit_fn)(int);
static exit_fn real__exit, real__Exit;
static int on_exit_registered;     /* inherited by fork children: once */

static void at_exit(int status, void *arg)
{
    (void)arg;
    pp_finish(PP_END_EXIT, status);
}

/* Exit handlers run in reverse order of registration, and ld.so runs a
 * preloaded library's constructor before __libc_start_main registers the
 * loader's own destructor pass.  Registered from the constructor, ours would
 * run after every ELF destructor, ours included, and never see the status.
 * So it is registered once the program runs (the sampler's first file). */
static void register_exit(void)
{
    if (on_exit_registered)
        return;
    on_exit_registered = 1;
    on_exit(at_exit, NULL);
}

void hooks_exit_init(void)
{
    real__exit = (exit_fn)dlsym(RTLD_NEXT, "_exit");
    real__Exit = (exit_fn)dlsym(RTLD_NEXT, "_Exit");
    sampler_on_file(register_exit);
}

static __attribute__((noreturn)) void leave(exit_fn fn, int status)
{
    if (fn)
        fn(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

PP_EXPORT void _exit(int status)
{
    pp_finish(PP_END_EXIT, status);
    leave(real__exit, status);
}

PP_EXPORT void _Exit(int status)
{
    pp_finish(PP_END_EXIT, status);
    leave(real__Exit ? real__Exit : real__exit, status);
}

__attribute__((destructor))
static void pp_fini(void)
{
    /* Only reached without exit() (dlclose, unusual runtimes). */
    pp_finish(PP_END_UNKNOWN, 0);
}
