/*
 * test_resumer.c — the innermost frame of a 3.12 thread whose current
 * frame is a generator frame with no caller link, found in memory forged
 * as CPython 3.12 lays it out (python/layout/py312.c): a thread state, a
 * data stack chunk of frames, generators.  Each case is a state the
 * interpreter passes through between its stores of a generator's caller
 * link and of the thread's current frame (pyprof(7), Consistent stacks):
 * resumed from a function or from a generator, a yield whose exception
 * state is or is not popped yet, a generator driven from C; and the
 * states where nothing can be told.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/layout/layout.h"
#include "python/resumer.h"

#define L (&py312_layout)
#define R (&py312_layout.resumer)

/* Pointer-aligned backing so that frames and objects can be addressed
 * as CPython's are. */
struct obj { uintptr_t w[48]; };

static struct obj tstate, code_small, code_big, gen_g, gen_x;
/* A root chunk: header, one unused word, then frames end to end. */
static uintptr_t chunk[256];

enum { SMALL = 12, BIG = 20 };   /* co_framesize, in words */

static uint8_t *bytes(void *p) { return (uint8_t *)p; }

static void put_ptr(void *base, uint32_t off, uintptr_t v)
{
    memcpy(bytes(base) + off, &v, sizeof v);
}

static uintptr_t frame_of(struct obj *gen)
{
    return (uintptr_t)gen + R->gen_iframe;
}

static uintptr_t exc_state_of(struct obj *gen)
{
    return (uintptr_t)gen + R->gen_exc_state;
}

static void frame(uintptr_t f, const struct obj *code, uintptr_t previous,
                  uint8_t owner)
{
    put_ptr((void *)f, L->fr_code, (uintptr_t)code);
    put_ptr((void *)f, L->fr_previous, previous);
    memcpy(bytes((void *)f) + L->fr_owner, &owner, 1);
}

static void generator(struct obj *gen, int8_t state, uintptr_t previous,
                      uintptr_t exc_previous)
{
    memset(gen, 0, sizeof *gen);
    memcpy(bytes(gen) + R->gen_frame_state, &state, 1);
    frame(frame_of(gen), &code_small, previous, R->owned_by_generator);
    put_ptr((void *)exc_state_of(gen), R->exc_previous, exc_previous);
}

/* The chunk's frames: n of them, sizes alternating big and small; the
 * data stack's top is the end of the last.  Returns frame i's address. */
static uintptr_t chunk_frame(int i)
{
    uintptr_t f = (uintptr_t)&chunk[R->chunk_data / sizeof(uintptr_t) + 1];
    for (int k = 0; k < i; k++)
        f += (k % 2 ? SMALL : BIG) * sizeof(uintptr_t);
    return f;
}

static void data_stack(int n)
{
    memset(chunk, 0, sizeof chunk);
    put_ptr(chunk, R->chunk_previous, 0);
    put_ptr(chunk, R->chunk_size, sizeof chunk);
    uintptr_t prev = 0;
    for (int i = 0; i < n; i++) {
        frame(chunk_frame(i), i % 2 ? &code_small : &code_big, prev,
              R->owned_by_thread);
        prev = chunk_frame(i);
    }
    put_ptr(&tstate, R->ts_datastack_chunk, (uintptr_t)chunk);
    put_ptr(&tstate, R->ts_datastack_top, chunk_frame(n));
}

static void exc_info(uintptr_t e)
{
    put_ptr(&tstate, R->ts_exc_info, e);
}

static uintptr_t no_generator(void)
{
    return (uintptr_t)&tstate + R->ts_exc_state;
}

static void setup(void)
{
    memset(&tstate, 0, sizeof tstate);
    memset(&code_small, 0, sizeof code_small);
    memset(&code_big, 0, sizeof code_big);
    int32_t s = SMALL, b = BIG;
    memcpy(bytes(&code_small) + R->co_framesize, &s, sizeof s);
    memcpy(bytes(&code_big) + R->co_framesize, &b, sizeof b);
    cr_assert_leq(R->ts_datastack_top + 8, sizeof tstate);
    cr_assert_leq(R->gen_iframe + L->fr_read, sizeof gen_g);
}

TestSuite(resumer, .init = setup);

/* for x in g(): in a function, g being resumed (or having yielded): the
 * function is the data stack's top, and no generator runs. */
Test(resumer, a_generator_resumed_by_a_function_hands_back_to_the_stack_top)
{
    data_stack(3);
    generator(&gen_g, -1, 0, 0);
    exc_info(no_generator());
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)),
                 chunk_frame(2));
}

/* for x in g(): inside generator x, resumed by the top frame: x is the
 * innermost running generator, the top frame is in its chain. */
Test(resumer, a_generator_resumed_by_a_generator_hands_back_to_that_generator)
{
    data_stack(2);
    generator(&gen_x, 0, chunk_frame(1), 0);
    generator(&gen_g, 0, 0, exc_state_of(&gen_x));
    exc_info(exc_state_of(&gen_x));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)),
                 frame_of(&gen_x));
}

/* The yield's pop of the exception state not stored yet (or the
 * resumption's push already): the one below the generator's own counts. */
Test(resumer, an_exception_state_not_yet_popped_names_the_one_below_it)
{
    data_stack(2);
    generator(&gen_x, 0, chunk_frame(1), 0);
    generator(&gen_g, -1, 0, exc_state_of(&gen_x));
    exc_info(exc_state_of(&gen_g));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)),
                 frame_of(&gen_x));
    /* ... and when the one below is not stored either, nothing is known. */
    generator(&gen_g, -1, 0, 0);
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)), 0);
}

/* A function called by running generator x resumes g (or sum() called by
 * it drives g from C): the function is innermost, x in its chain. */
Test(resumer, a_function_called_by_a_generator_is_innermost)
{
    data_stack(2);
    generator(&gen_x, 0, chunk_frame(0), 0);
    frame(chunk_frame(1), &code_small, frame_of(&gen_x), R->owned_by_thread);
    generator(&gen_g, -1, 0, 0);
    exc_info(exc_state_of(&gen_x));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)),
                 chunk_frame(1));
}

Test(resumer, a_running_generator_and_a_stack_top_in_different_chains_tell_nothing)
{
    data_stack(2);
    generator(&gen_x, 0, chunk_frame(0), 0);   /* not the top's caller */
    generator(&gen_g, -1, 0, 0);
    exc_info(exc_state_of(&gen_x));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)), 0);
}

Test(resumer, a_named_generator_that_is_not_running_tells_nothing)
{
    data_stack(2);
    generator(&gen_x, -1, chunk_frame(1), 0);
    generator(&gen_g, -1, 0, 0);
    exc_info(exc_state_of(&gen_x));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)), 0);
}

Test(resumer, a_data_stack_whose_frames_do_not_end_at_its_top_tells_nothing)
{
    data_stack(3);
    generator(&gen_g, -1, 0, 0);
    exc_info(no_generator());
    put_ptr(&tstate, R->ts_datastack_top, chunk_frame(3) - sizeof(uintptr_t));
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)), 0);
    /* a top frame not on the data stack's terms (owner) */
    data_stack(3);
    uint8_t gen_owned = R->owned_by_generator;
    memcpy(bytes((void *)chunk_frame(2)) + L->fr_owner, &gen_owned, 1);
    cr_expect_eq(resumer_frame(L, (uintptr_t)&tstate, frame_of(&gen_g)), 0);
}

/* Other layouts say nothing of it. */
Test(resumer, layouts_without_the_fields_tell_nothing)
{
    data_stack(3);
    generator(&gen_g, -1, 0, 0);
    exc_info(no_generator());
    cr_expect_eq(resumer_frame(&py311_layout, (uintptr_t)&tstate,
                               frame_of(&gen_g)), 0);
}
