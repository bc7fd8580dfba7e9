/*
 * lifecycle.c — the moves between the profile's states that start or end
 * the sampler thread (lifecycle.h); sampler.c does the work each asks for.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/identity.h"
#include "base/log.h"
#include "base/run_delay.h"
#include "pyprof/format.h"
#include "sample/lifecycle.h"
#include "sample/sampler.h"

/* pp_before_exec's tokens: nothing done (0), the file ended, the sampler
 * held (sampler_hold_unopened). */
enum { EXEC_ENDED = 1, EXEC_HELD = 2 };

/* Whether an exec now makes the fork child and the program it execs one
 * spawn (PP_SPAWN_WINDOW_NS): time the child took, not time it spent
 * waiting for a CPU on a loaded machine (base/run_delay.h), which the
 * kernel is asked for only past the window.  Both are counted from the
 * fork call, so the wait for the child's first turn is in both. */
static int exec_follows_fork_at_once(void)
{
    if (pp_state.started_by != PP_START_FORK)
        return 0;
    uint64_t took = pp_clock_ns(CLOCK_MONOTONIC) - pp_state.forked_ns;
    if (took < PP_SPAWN_WINDOW_NS)
        return 1;
    uint64_t waited = pp_thread_run_delay_ns();
    return waited >= took || took - waited < PP_SPAWN_WINDOW_NS;
}

void pp_start(int started_by)
{
    pp_state.started_by = started_by;
    atomic_store(&pp_profile.phase,
                 sampler_start() == 0 ? PP_SAMPLING : PP_OFF);
}

void pp_finish(int how, int value)
{
    /* A vfork/posix_spawn child shares our memory but is not this image. */
    if (!pp_profile_sampling() || getpid() != pp_state.pid)
        return;
    if (sampler_on_this_thread())
        return;
    int from = PP_SAMPLING;
    if (!atomic_compare_exchange_strong(&pp_profile.phase, &from, PP_FINISHING)) {
        sampler_wait_ended();
        return;
    }
    sampler_end(how, value);
    atomic_store(&pp_profile.phase, PP_ENDED);
}

int pp_before_exec(void)
{
    if (!pp_profile_sampling() || getpid() != pp_state.pid)
        return 0;
    /* fork() then exec() at once (subprocess with preexec_fn, shells) is
     * one way of spawning: the short-lived fork child leaves no file and
     * the exec'd program names the fork child's parent as its own.  "At
     * once" is a time, not "before the first sample": the child's few
     * samples of subprocess's own work before the exec are dropped with
     * it (pyprof(7), Following children). */
    int discard = exec_follows_fork_at_once();
    int token = EXEC_ENDED;
    /* Nothing to write or remove yet: the sampler is not stopped but held,
     * and the exec ends it with the image.  A failed exec (each miss of a
     * PATH search) then costs no stop and no new thread. */
    if (discard && sampler_hold_unopened()) {
        token = EXEC_HELD;
        atomic_store(&pp_profile.exec_held, 1);
    } else {
        sampler_discard_on_end(discard);
        pp_finish(PP_END_EXEC, 0);
    }
    if (discard && pp_state.parent_uid)
        pp_format_parent(pp_state.inherited_parent, pp_state.parent_uid,
                         PP_START_SPAWN);
    return token;
}

void pp_exec_failed(int token)
{
    if (token == EXEC_HELD) {
        atomic_store(&pp_profile.exec_held, 0);
        sampler_release();
        return;
    }
    if (token != EXEC_ENDED)
        return;
    /* The END(exec) record stays; records after it tell the reader that
     * the image went on (pyprof(5), END).  Same file, new zstd frame. */
    sampler_discard_on_end(0);
    /* Only if the old thread is gone: pp_finish gives up waiting after a
     * bound, and two samplers must never share the writer. */
    if (!sampler_ended()) {
        pp_warn("the sampler did not stop before exec; the rest of this "
                "image is not profiled");
        return;
    }
    atomic_store(&pp_profile.phase,
                 sampler_start() == 0 ? PP_SAMPLING : PP_ENDED);
}
