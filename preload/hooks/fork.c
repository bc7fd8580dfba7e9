/*
 * fork.c — a fork child is a new image with its own file.
 *
 * fork() is wrapped (not handled in a pthread_atfork child handler) so that
 * the child's sampler is started in ordinary code after fork returned,
 * where glibc has already reset its malloc and loader locks, rather than in
 * a handler where only async-signal-safe calls are allowed.  The wrapper
 * also keeps the sampler between ticks across the fork, so the child never
 * inherits a half-written buffer; the child drops the parent's unwritten
 * bytes (they are the parent's to write) and opens its own file.
 * vfork is not wrapped: its child shares our stack (pyprof(7), Fork); the
 * exec hooks handle it.
 */
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/identity.h"
#include "hooks/hooks.h"
#include "hooks/stat_filter.h"
#include "pyprof/format.h"
#include "python/pyvm.h"
#include "record/writer.h"
#include "sample/lifecycle.h"
#include "sample/sampler.h"

typedef pid_t (*fork_fn)(void);
PP_START_WRITES static fork_fn real_fork;

void hooks_fork_init(void)
{
    real_fork = (fork_fn)dlsym(RTLD_NEXT, "fork");
}

/* forker: the thread that forked; at: the clock when it called fork, so
 * that the child's age counts its wait for a first turn on a CPU, as the
 * kernel's count of its waiting does (lifecycle.c). */
static void become_child(uint32_t forker, uint64_t at)
{
    /* The parent samples (fork() is only wrapped then), so it has or will
     * have a file even if its first tick has not come yet: name it. */
    pp_state.parent_uid = pp_state.uid;
    pp_profile_after_fork();
    pp_state.pid = getpid();
    pp_state.ppid = getppid();
    pp_state.forked_ns = at;
    pp_state.uid = pp_child_uid(pp_state.parent_uid, pp_state.pid,
                                pp_state.forked_ns);
    writer_after_fork();
    sampler_after_fork();
    pyvm_after_fork(forker, (uint32_t)pp_state.pid);
    /* PYPROF_FOLLOW=0 profiles the command only, not its fork children
     * (pyprof(7), Following children). */
    if (pp_config.follow)
        pp_start(PP_START_FORK);
    else
        pp_not_started();
}

PP_EXPORT pid_t fork(void)
{
    if (!real_fork)
        real_fork = (fork_fn)dlsym(RTLD_NEXT, "fork");
    if (!pp_profile_sampling())
        hooks_dlopen_check();     /* a pre-fork server that loaded Python */
    if (!pp_profile_sampling())
        return real_fork();
    /* The thread that forks is the child's one thread, whatever the
     * interpreter's thread state says (pyvm_after_fork). */
    uint32_t forker = (uint32_t)syscall(SYS_gettid);
    sampler_pause();
    uint64_t at = pp_clock_ns(CLOCK_MONOTONIC);
    pid_t pid = real_fork();
    if (pid == 0) {
        become_child(forker, at);
        return 0;
    }
    sampler_resume();
    if (pid > 0)
        stat_filter_arm();
    return pid;
}
