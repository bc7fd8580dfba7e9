/*
 * test_framecache.c — where 3.15's frame cache lets a walk stop: the
 * anchor is accepted only at the frame the counted pops lead to from the
 * one written, moving only through frames the thread owns, linked
 * directly; and it is written only into static thread states.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "framecache.h"
#include "safe_read.h"

#define ANCHOR 88          /* 3.15.2: last_profiled_frame */
#define SEQ    96          /*         last_profiled_frame_seq */

/* Stands for _PyRuntime: a "thread state" inside it may be written. */
static uint8_t runtime[4096] __attribute__((aligned(16)));
static struct raw_frame outer[5];          /* outermost first */
static uint8_t ts[256] __attribute__((aligned(16)));

static void setup(void)
{
    cr_assert(safe_read_init() == 0, "the read guard could not be installed");
    framecache_init(ANCHOR, SEQ, (uintptr_t)runtime, sizeof runtime);
    memset(outer, 0, sizeof outer);
    for (unsigned i = 0; i < 5; i++)
        outer[i].addr = 0x10000 + 0x100 * i;
}

/* The thread state as read: anchor and pop count. */
static void state(uintptr_t anchor, uintptr_t seq)
{
    memcpy(ts + ANCHOR, &anchor, sizeof anchor);
    memcpy(ts + SEQ, &seq, sizeof seq);
}

static uintptr_t stop(uintptr_t anchor, uintptr_t seq, unsigned *idx)
{
    static const struct fc_anchor a = { .addr = 0x10400, .seq = 7, .idx = 4 };
    state(anchor, seq);
    *idx = 99;
    return framecache_stop(&a, ts, outer, 5, idx);
}

Test(framecache, the_anchor_is_accepted_only_where_the_pops_lead, .init = setup)
{
    unsigned idx;
    cr_expect_eq(stop(0x10400, 7, &idx), 0x10400, "not popped: stop there");
    cr_expect_eq(idx, 4);
    cr_expect_eq(stop(0x10200, 9, &idx), 0x10200, "two pops: two links down");
    cr_expect_eq(idx, 2);
    cr_expect_eq(stop(0x10200, 8, &idx), 0, "one pop cannot reach it");
    cr_expect_eq(stop(0x10200, 10, &idx), 0, "three pops end elsewhere");
    cr_expect_eq(stop(0x10000, 12, &idx), 0, "past the outermost frame");
    cr_expect_eq(stop(0x12345, 7, &idx), 0, "written by someone else");
}

Test(framecache, only_frames_the_thread_owns_are_passed_or_stopped_at,
     .init = setup)
{
    unsigned idx;
    outer[3].owner = 1;                    /* a generator's frame */
    cr_expect_eq(stop(0x10200, 9, &idx), 0, "passed a generator frame");
    cr_expect_eq(stop(0x10300, 8, &idx), 0, "stopped at a generator frame");
    outer[3].owner = 0;
    outer[3].shims_below = 1;              /* an entry frame below it */
    cr_expect_eq(stop(0x10200, 9, &idx), 0, "passed a shim");
    cr_expect_eq(stop(0x10300, 8, &idx), 0x10300, "stopping above it is fine");
}

Test(framecache, it_writes_only_into_static_thread_states, .init = setup)
{
    uint8_t heap_like[256];
    cr_expect(!framecache_usable((uintptr_t)heap_like));
    cr_expect(framecache_usable((uintptr_t)runtime + 1024));
    cr_expect(!framecache_usable((uintptr_t)runtime + sizeof runtime - 64));

    uintptr_t tstate = (uintptr_t)runtime + 1024, seq = 41;
    memcpy(runtime + 1024 + SEQ, &seq, sizeof seq);
    struct fc_anchor a;
    framecache_anchor(&a, tstate, outer, 3);
    uintptr_t written;
    memcpy(&written, runtime + 1024 + ANCHOR, sizeof written);
    cr_expect_eq(written, 0x10300);
    cr_expect_eq(a.addr, 0x10300);
    cr_expect_eq(a.seq, 41);
    cr_expect_eq(a.idx, 3);
    state(0x10300, 41);
    cr_expect(framecache_holds(&a, ts, 3));
    state(0x10200, 42);
    cr_expect(!framecache_holds(&a, ts, 3), "popped since");

    framecache_anchor(&a, (uintptr_t)heap_like, outer, 3);
    cr_expect_eq(a.addr, 0, "a heap thread state got an anchor");
}
