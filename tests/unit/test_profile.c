/*
 * test_profile.c — the profile's states as the other layers see them
 * (preload/sample/lifecycle.h): an interpreter is found once, the moves
 * that refuse leave the image OFF for good, and a child names this image
 * while it samples or once its file exists.  Each test runs in its own
 * process, so pp_profile starts DORMANT in each.
 */
#include <criterion/criterion.h>

#include "sample/lifecycle.h"

static int phase(void) { return atomic_load(&pp_profile.phase); }

Test(profile, a_process_starts_dormant_and_unnamed)
{
    cr_expect_eq(phase(), PP_DORMANT);
    cr_expect_not(pp_profile_seen());
    cr_expect_not(pp_profile_sampling());
    cr_expect_not(pp_profile_nameable());
}

Test(profile, an_interpreter_is_found_once)
{
    cr_expect(pp_profile_found(1), "DORMANT -> STARTING");
    cr_expect_eq(phase(), PP_STARTING);
    cr_expect(pp_profile_seen());
    cr_expect_not(pp_profile_found(1), "a second detection starts nothing");
    cr_expect_not(pp_profile_found(-1));
    cr_expect_eq(phase(), PP_STARTING);
    cr_expect_not(pp_profile_sampling(), "no sampler yet");
    cr_expect_not(pp_profile_nameable());
}

Test(profile, an_unreadable_interpreter_is_off_for_good)
{
    cr_expect(pp_profile_found(-1));
    cr_expect_eq(phase(), PP_OFF);
    cr_expect(pp_profile_seen(), "not looked for again after a dlopen");
    cr_expect_not(pp_profile_found(1));
    cr_expect_eq(phase(), PP_OFF);
}

Test(profile, a_start_refused_is_off_and_only_from_starting)
{
    pp_profile_found(1);
    pp_not_started();
    cr_expect_eq(phase(), PP_OFF);
    atomic_store(&pp_profile.phase, PP_SAMPLING);
    pp_not_started();
    cr_expect_eq(phase(), PP_SAMPLING, "a sampling image is not turned off");
}

/* A child names this image while it samples (its file is created at the
 * first tick at the latest), while it finishes, and after its end if its
 * file was kept; not after a discarded file or a refused start. */
Test(profile, a_child_names_this_image_while_it_samples_or_has_a_file)
{
    static const struct { int phase, has_file, named; } cases[] = {
        { PP_STARTING, 0, 0 }, { PP_OFF, 0, 0 },
        { PP_SAMPLING, 0, 1 }, { PP_SAMPLING, 1, 1 },
        { PP_FINISHING, 0, 1 }, { PP_ENDED, 1, 1 }, { PP_ENDED, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        atomic_store(&pp_profile.phase, cases[i].phase);
        atomic_store(&pp_profile.has_file, cases[i].has_file);
        cr_expect_eq(pp_profile_nameable(), cases[i].named,
                     "phase %d, has_file %d", cases[i].phase, cases[i].has_file);
        cr_expect_eq(pp_profile_sampling(),
                     cases[i].phase == PP_SAMPLING || cases[i].phase == PP_FINISHING);
    }
}

Test(profile, a_fork_child_is_a_new_image_starting_without_a_file)
{
    atomic_store(&pp_profile.phase, PP_SAMPLING);
    atomic_store(&pp_profile.has_file, 1);
    pp_profile_after_fork();
    cr_expect_eq(phase(), PP_STARTING);
    cr_expect_not(pp_profile_nameable());
}
