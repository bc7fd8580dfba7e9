/*
 * test_framecache.c — when 3.15's frame cache lets a walk stop: an anchor
 * is trusted only once a full walk proved it (unchanged around the walk,
 * found at a frame the thread owns); counted moves lead it down only
 * through frames the thread owns, linked directly, and only to where the
 * count says; a walk that stopped keeps it only if it did not move; it is
 * written only into static thread states, and another writer turns the
 * cache off.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/framecache.h"
#include "guard/safe_read.h"

#define ANCHOR 88          /* 3.15.2: last_profiled_frame */
#define SEQ    96          /*         last_profiled_frame_seq */

/* Stands for _PyRuntime: a "thread state" inside it may be written. */
static uint8_t runtime[4096] __attribute__((aligned(16)));
#define TSTATE ((uintptr_t)runtime + 1024)
static struct raw_frame outer[5];          /* outermost first */
static uint8_t ts[256] __attribute__((aligned(16)));

static void setup(void)
{
    cr_assert(safe_read_init() == 0, "the read guard could not be installed");
    framecache_init(ANCHOR, SEQ, (uintptr_t)runtime, sizeof runtime);
    memset(outer, 0, sizeof outer);
    memset(runtime, 0, sizeof runtime);
    for (unsigned i = 0; i < 5; i++)
        outer[i].addr = 0x10000 + 0x100 * i;
}

/* The thread state as read before a walk: anchor and count. */
static void state(uintptr_t anchor, uintptr_t seq)
{
    memcpy(ts + ANCHOR, &anchor, sizeof anchor);
    memcpy(ts + SEQ, &seq, sizeof seq);
}

/* A stop computed from an anchor trusted at outer[4] under count 7. */
static uintptr_t stop(uintptr_t anchor, uintptr_t seq, unsigned *idx)
{
    struct fc_anchor a = { .addr = 0x10400, .seq = 7, .idx = 4, .trusted = 1 };
    state(anchor, seq);
    *idx = 99;
    uintptr_t at = framecache_stop(&a, ts, outer, 5, idx);
    cr_expect(!a.trusted, "a stop is trusted again only once held");
    return at;
}

Test(framecache, a_stop_is_only_where_the_counted_moves_lead, .init = setup)
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

    struct fc_anchor untrusted = { .addr = 0x10400, .seq = 7, .idx = 4 };
    state(0x10400, 7);
    cr_expect_eq(framecache_stop(&untrusted, ts, outer, 5, &idx), 0,
                 "an anchor not proved gave a stop");
}

Test(framecache, moves_pass_only_frames_the_thread_owns_linked_directly,
     .init = setup)
{
    unsigned idx;
    outer[3].owner = 1;                    /* a generator's frame */
    cr_expect_eq(stop(0x10200, 9, &idx), 0, "passed a generator frame");
    cr_expect_eq(stop(0x10300, 8, &idx), 0, "stopped at a generator frame");
    outer[3].owner = 0;
    outer[3].shims_below = 1;              /* an entry frame below it */
    cr_expect_eq(stop(0x10200, 9, &idx), 0, "passed an entry frame");
    cr_expect_eq(stop(0x10300, 8, &idx), 0x10300, "stopping above it is fine");
}

Test(framecache, a_stop_holds_only_if_the_anchor_did_not_move_during_the_walk,
     .init = setup)
{
    struct fc_anchor a = { 0 };
    uintptr_t now[2] = { 0x10300, 8 };
    state(0x10300, 8);
    cr_expect(framecache_held(&a, ts, now, 3));
    cr_expect(a.trusted && a.addr == 0x10300 && a.seq == 8 && a.idx == 3);

    struct fc_anchor b = { 0 };
    uintptr_t popped[2] = { 0x10200, 9 };
    cr_expect(!framecache_held(&b, ts, popped, 3), "popped during the walk");
    cr_expect(!b.trusted);
}

Test(framecache, a_full_walk_proves_an_anchor_found_at_a_frame_the_thread_owns,
     .init = setup)
{
    struct fc_anchor a = { 0 };
    uintptr_t now[2] = { 0x10300, 41 };
    state(0x10300, 41);
    framecache_prove(&a, ts, now, outer, 5);
    cr_expect(a.trusted && a.idx == 3 && a.addr == 0x10300 && a.seq == 41);

    uintptr_t moved[2] = { 0x10200, 42 };
    framecache_prove(&a, ts, moved, outer, 5);
    cr_expect(!a.trusted, "the anchor moved during the walk");

    uintptr_t gone[2] = { 0x20000, 41 };
    state(0x20000, 41);
    framecache_prove(&a, ts, gone, outer, 5);
    cr_expect(!a.trusted, "not a frame the walk read");

    outer[3].owner = 1;
    state(0x10300, 41);
    framecache_prove(&a, ts, now, outer, 5);
    cr_expect(!a.trusted, "a generator's frame is popped without a move");
}

Test(framecache, the_innermost_frame_the_thread_owns_is_picked, .init = setup)
{
    outer[4].owner = 1;
    outer[3].owner = 4;
    cr_expect_eq(framecache_pick(outer, 5), 2);
    for (unsigned i = 0; i < 5; i++)
        outer[i].owner = 1;
    cr_expect_eq(framecache_pick(outer, 5), -1);
}

Test(framecache, it_writes_only_into_static_thread_states, .init = setup)
{
    uint8_t heap_like[256];
    cr_expect(!framecache_usable((uintptr_t)heap_like));
    cr_expect(framecache_usable(TSTATE));
    cr_expect(!framecache_usable((uintptr_t)runtime + sizeof runtime - 64));

    struct fc_anchor a = { .trusted = 1 };
    uintptr_t seq = 41, written;
    memcpy(runtime + 1024 + SEQ, &seq, sizeof seq);
    framecache_write(&a, TSTATE, outer, 3);
    memcpy(&written, runtime + 1024 + ANCHOR, sizeof written);
    cr_expect_eq(written, 0x10300);
    cr_expect(!a.trusted, "a written anchor is trusted only once proved");
    cr_expect(a.written && a.wrote == 0x10300 && a.wrote_seq == 41);

    struct fc_anchor b = { 0 };
    memset(heap_like, 0, sizeof heap_like);
    framecache_write(&b, (uintptr_t)heap_like, outer, 3);
    memcpy(&written, heap_like + ANCHOR, sizeof written);
    cr_expect(!b.written && written == 0, "a heap thread state was written");
}

Test(framecache, another_writer_turns_the_cache_off, .init = setup)
{
    struct fc_anchor a = { 0 };
    framecache_write(&a, TSTATE, outer, 4);
    uintptr_t now[2];
    cr_assert(framecache_now(TSTATE, now) == 0 && now[0] == 0x10400);

    /* The interpreter's moves come with the count: still on. */
    uintptr_t moved[2] = { 0x10300, now[1] + 1 };
    state(moved[0], moved[1]);
    framecache_prove(&a, ts, moved, outer, 5);
    cr_expect(a.trusted && framecache_usable(TSTATE));

    /* A different anchor under the count of our write: someone else. */
    uintptr_t other[2] = { 0x10100, now[1] };
    state(other[0], other[1]);
    framecache_prove(&a, ts, other, outer, 5);
    cr_expect(!a.trusted);
    cr_expect(!framecache_usable(TSTATE), "still used beside another writer");
}
