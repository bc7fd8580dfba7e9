/*
 * test_interp_join.c — a thread's subinterpreter sample joined under its
 * caller's (preload/sample/interp_join.h), and not joined when the thread
 * left the call between the two reads.  The walk's answer to "is the
 * subinterpreter's outermost frame still on its stack" is this file's
 * (still_on below), so each case says what the thread did meanwhile.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pyprof/format.h"
#include "python/codecache.h"
#include "sample/interp_join.h"

static int still_on = 1;                 /* the walk's answer */
static uintptr_t asked_tstate;
static const struct pyvm_frame *asked;
static int asks;

int pyvm_frame_still_on(uintptr_t tstate, const struct pyvm_frame *f,
                        unsigned hops)
{
    (void)hops;
    asked_tstate = tstate;
    asked = f;
    asks++;
    return still_on;
}

static struct code_info task = { .qualname = "pool_task", .name = "pool_task",
                                 .filename = "t.py" };
static struct code_info do_call = { .qualname = "do_call", .name = "do_call",
                                    .filename = "t.py" };
static struct code_info runner = { .qualname = "WorkerContext.run", .name = "run",
                                   .filename = "i.py" };
static struct code_info worker = { .qualname = "_worker", .name = "_worker",
                                   .filename = "thread.py" };
static struct code_info perf = { .qualname = "<built-in method time.perf_counter>",
                                 .name = "perf_counter", .filename = "~" };

/* innermost first: perf_counter (a pseudo-frame), pool_task, do_call */
static struct pyvm_frame sub_frames[] = {
    { .code = &perf, .line = 0, .addr = 0 },
    { .code = &task, .line = 3, .addr = 0x7000 },
    { .code = &do_call, .line = 9, .addr = 0x6000 },
};
static struct pyvm_frame main_frames[] = {
    { .code = &runner, .line = 84, .addr = 0x5000 },
    { .code = &worker, .line = 119, .addr = 0x4000 },
};

static struct pyvm_thread sub_sample(void)
{
    return (struct pyvm_thread){ .tstate = 0xa000, .native_tid = 77, .interp = 2,
                                 .depth = 3, .frames = sub_frames,
                                 .flags = PP_SAMPLE_HOLDS_GIL };
}

static struct pyvm_thread main_sample(void)
{
    return (struct pyvm_thread){ .tstate = 0xb000, .native_tid = 77, .interp = 0,
                                 .depth = 2, .frames = main_frames };
}

static void fresh(int answer)
{
    interp_join_begin();
    still_on = answer;
    asks = 0;
    asked = NULL;
}

Test(interp_join, a_thread_still_in_its_call_is_one_stack_under_its_callers)
{
    fresh(1);
    struct pyvm_thread s = sub_sample(), m = main_sample();
    cr_assert(interp_join_hold(&s));
    const struct pyvm_thread *j = interp_join_with(&m);
    cr_assert_eq(j->depth, 6u, "3 frames, <interpreter 2>, 2 callers: %u", j->depth);
    cr_expect_eq(j->frames[1].code, &task);
    cr_expect_str_eq(j->frames[3].code->qualname, "<interpreter 2>");
    cr_expect_eq(j->frames[4].code, &runner);
    cr_expect_eq(j->frames[5].code, &worker);
    cr_expect_eq(j->interp, 2);
    cr_expect(j->flags & PP_SAMPLE_HOLDS_GIL, "holds the subinterpreter's GIL");
    cr_expect_null(interp_join_leftover(), "nothing left held");
}

Test(interp_join, the_check_asks_for_the_outermost_real_frame_of_the_held_state)
{
    fresh(1);
    struct pyvm_thread s = sub_sample(), m = main_sample();
    cr_assert(interp_join_hold(&s));
    interp_join_with(&m);
    cr_assert_eq(asks, 1);
    cr_expect_eq(asked_tstate, 0xa000u, "the subinterpreter's state, not the caller's");
    cr_assert_not_null(asked);
    cr_expect_eq(asked->addr, 0x6000u, "do_call, the frame the call began with");
    cr_expect_eq(asked->code, &do_call);
}

/* The failure this guards against: a pool worker whose task was read in
 * its subinterpreter, then returned and handed its result back
 * (Future.set_result) before its caller's state was read; joined, the
 * task stood under set_result instead of WorkerContext.run. */
Test(interp_join, a_thread_that_left_its_call_between_the_reads_is_its_callers_state_alone)
{
    fresh(0);
    struct pyvm_thread s = sub_sample(), m = main_sample();
    cr_assert(interp_join_hold(&s));
    const struct pyvm_thread *j = interp_join_with(&m);
    cr_expect_eq(j, &m, "the caller's sample as read");
    cr_expect_eq(j->depth, 2u);
    cr_expect_eq(j->interp, 0);
    cr_expect_null(interp_join_leftover(), "the stale state is not taken later alone");
}

Test(interp_join, a_held_state_without_a_real_frame_joins_as_before)
{
    fresh(0);
    struct pyvm_frame only_pseudo[] = { { .code = &perf, .line = 0, .addr = 0 } };
    struct pyvm_thread s = sub_sample(), m = main_sample();
    s.frames = only_pseudo;
    s.depth = 1;
    cr_assert(interp_join_hold(&s));
    const struct pyvm_thread *j = interp_join_with(&m);
    cr_expect_eq(asks, 0, "nothing to look for");
    cr_expect_eq(j->depth, 4u, "perf_counter, <interpreter 2>, 2 callers: %u", j->depth);
}

Test(interp_join, a_cut_state_stands_alone_without_asking)
{
    fresh(0);
    struct pyvm_thread s = sub_sample(), m = main_sample();
    s.flags |= PP_SAMPLE_TRUNCATED;
    cr_assert(interp_join_hold(&s));
    const struct pyvm_thread *j = interp_join_with(&m);
    cr_expect_eq(asks, 0);
    cr_expect_eq(j->interp, 2, "the subinterpreter's sample");
    cr_expect_eq(j->depth, 4u, "its frames and <interpreter 2>, no callers");
    cr_expect(j->flags & PP_SAMPLE_TRUNCATED);
}

Test(interp_join, another_threads_caller_does_not_take_a_held_state)
{
    fresh(1);
    struct pyvm_thread s = sub_sample(), m = main_sample();
    m.native_tid = 78;
    cr_assert(interp_join_hold(&s));
    cr_expect_eq(interp_join_with(&m), &m);
    cr_expect_eq(asks, 0);
    const struct pyvm_thread *left = interp_join_leftover();
    cr_assert_not_null(left, "taken alone at the tick's end");
    cr_expect_eq(left->depth, 4u);
    cr_expect_null(interp_join_leftover());
}
