/*
 * profile.c — this image's profile state (lifecycle.h) and the questions
 * other layers ask of it; the moves that need the sampler thread are in
 * lifecycle.c.
 */
#include "base/child_writes.h"
#include "sample/lifecycle.h"

struct pp_profile pp_profile PP_CHILD_WRITES;

static int phase(void) { return atomic_load(&pp_profile.phase); }

int pp_profile_found(int found)
{
    int from = PP_DORMANT;
    return atomic_compare_exchange_strong(&pp_profile.phase, &from,
                                          found > 0 ? PP_STARTING : PP_OFF);
}

int pp_profile_seen(void) { return phase() != PP_DORMANT; }

int pp_profile_sampling(void)
{
    int p = phase();
    return p == PP_SAMPLING || p == PP_FINISHING;
}

int pp_profile_nameable(void)
{
    /* An exec that leaves no file names the fork child's parent instead
     * (pp_before_exec), also while its sampler is only held. */
    if (atomic_load(&pp_profile.exec_held))
        return 0;
    return pp_profile_sampling() || atomic_load(&pp_profile.has_file);
}

void pp_not_started(void)
{
    int from = PP_STARTING;
    atomic_compare_exchange_strong(&pp_profile.phase, &from, PP_OFF);
}

void pp_profile_after_fork(void)
{
    atomic_store(&pp_profile.has_file, 0);
    atomic_store(&pp_profile.exec_held, 0);
    atomic_store(&pp_profile.phase, PP_STARTING);
}
