/*
 * test_callsite.c — the map of where a frame can stand with a callee
 * pushed inline, or with a generator it resumed through C code, built
 * from bytecode as 3.10, 3.11 and 3.12 compile it.
 *
 * The bytecode (but for the last test's) is that of
 *
 *     def plain(stop, xs):
 *         i = 0
 *         while not stop[0]:
 *             leaf(i)
 *             i += xs[i]
 *         return [v for v in xs]
 *
 * as 3.11.7 and 3.12.1 compile it (co_code); where its calls, subscripts
 * and (3.12) its comprehension's for loop stand, with their inline cache
 * entries, is what dis.get_instructions and opcode._inline_cache_entries
 * of the same interpreters say.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/callsite.h"
#include "python/layout/layout.h"

static const uint16_t plain311[] = {
    0x0097, 0x0164, 0x027d, 0x007c, 0x0164, 0x0019, 0x0000, 0x0000, 0x0000,
    0x0000, 0x2273, 0x0174, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x027c,
    0x01a6, 0x0000, 0x01ab, 0x0000, 0x0000, 0x0000, 0x0000, 0x0001, 0x027c,
    0x017c, 0x027c, 0x0019, 0x0000, 0x0000, 0x0000, 0x0000, 0x0d7a, 0x0000,
    0x027d, 0x007c, 0x0164, 0x0019, 0x0000, 0x0000, 0x0000, 0x0000, 0x22af,
    0x0264, 0x0084, 0x017c, 0x0044, 0x00a6, 0x0000, 0x00ab, 0x0000, 0x0000,
    0x0000, 0x0000, 0x0053,
};

static const uint16_t plain312[] = {
    0x0097, 0x0164, 0x027d, 0x007c, 0x0164, 0x0019, 0x0000, 0x1973, 0x0174,
    0x0000, 0x0000, 0x0000, 0x0000, 0x027c, 0x01ab, 0x0000, 0x0000, 0x0000,
    0x0001, 0x027c, 0x017c, 0x027c, 0x0019, 0x0000, 0x0d7a, 0x0000, 0x027d,
    0x007c, 0x0164, 0x0019, 0x0000, 0x0173, 0x198c, 0x017c, 0x0044, 0x038f,
    0x0263, 0x0067, 0x0263, 0x045d, 0x0000, 0x037d, 0x037c, 0x0291, 0x068c,
    0x0004, 0x0263, 0x037d, 0x0053, 0x0263, 0x0001, 0x0263, 0x037d, 0x0077,
};

#define N(a) ((uint32_t)(sizeof a / sizeof a[0]))

/* Every unit in [start, start + size) of each span is marked in the map
 * that ask reads (callsite_can_call or callsite_can_resume), no other. */
typedef int ask_fn(const struct callsite_map *, int32_t);

static void expect_spans(const struct callsite_map *m, ask_fn *ask,
                         uint32_t units, const uint32_t (*spans)[2],
                         int nspans)
{
    cr_assert_not_null(m->bits);
    cr_assert_not_null(m->resumes);
    cr_assert_eq(m->units, units);
    for (uint32_t u = 0; u < units; u++) {
        int want = 0;
        for (int s = 0; s < nspans; s++)
            want |= u >= spans[s][0] && u < spans[s][0] + spans[s][1];
        cr_expect_eq(ask(m, (int32_t)u), want, "unit %u: %d, expected %d",
                     u, ask(m, (int32_t)u), want);
    }
    cr_expect_not(ask(m, -1), "not started: no callee");
    cr_expect_not(ask(m, (int32_t)units), "past the end");
}

static void expect_marked(const struct callsite_map *m, uint32_t units,
                          const uint32_t (*spans)[2], int nspans)
{
    expect_spans(m, callsite_can_call, units, spans, nspans);
}

static void expect_resumes(const struct callsite_map *m, uint32_t units,
                           const uint32_t (*spans)[2], int nspans)
{
    expect_spans(m, callsite_can_resume, units, spans, nspans);
}

/* Builds l's map of code[0..units) and checks it with ask, as above. */
static void expect_built(const struct py_layout *l, const uint16_t *code,
                         uint32_t units, ask_fn *ask,
                         const uint32_t (*spans)[2], int nspans)
{
    struct callsite_map m;
    callsite_build_from(l, code, units, &m);
    expect_spans(&m, ask, units, spans, nspans);
    callsite_free(&m);
}

Test(callsite, calls_and_subscripts_with_their_caches_on_311)
{
    /* BINARY_SUBSCR at 5, 29, 39 and CALL at 20, 51: 4 caches each. */
    static const uint32_t spans[][2] = { { 5, 5 }, { 20, 5 }, { 29, 5 },
                                         { 39, 5 }, { 51, 5 } };
    struct callsite_map m;
    callsite_build_from(&py311_layout, plain311, N(plain311), &m);
    expect_marked(&m, N(plain311), spans, 5);
    /* The loop test and the augmented assignment: where a caller read
     * between two calls of a tight loop stands. */
    cr_expect_not(callsite_can_call(&m, 10));      /* POP_JUMP_..._IF_TRUE */
    cr_expect_not(callsite_can_call(&m, 34));      /* BINARY_OP += */
    callsite_free(&m);
}

/* A generator entered from C (every generator on 3.11) runs above a
 * caller standing on a call (3.11: PRECALL too, where a builtin such as
 * sum runs) or a for loop; the loop test, a subscript and an augmented
 * assignment are where a caller read between a yield and the next
 * resumption stands.  Spans as dis says: PRECALL at 18 and 49 (2 units),
 * CALL at 20 and 51 (5). */
Test(callsite, generators_are_resumed_from_calls_and_loops_only_on_311)
{
    static const uint32_t spans[][2] = { { 18, 2 }, { 20, 5 }, { 49, 2 },
                                         { 51, 5 } };
    struct callsite_map m;
    callsite_build_from(&py311_layout, plain311, N(plain311), &m);
    expect_resumes(&m, N(plain311), spans, 4);
    callsite_free(&m);
    cr_expect_null(m.resumes);
}

/* 3.12: CALL at 14 (4 units), the comprehension's FOR_ITER at 39 (2). */
Test(callsite, generators_are_resumed_from_calls_and_loops_only_on_312)
{
    static const uint32_t spans[][2] = { { 14, 4 }, { 39, 2 } };
    expect_built(&py312_layout, plain312, N(plain312), callsite_can_resume,
                 spans, 2);
}

/* 3.10.13's
 *
 *     def plain310(g, xs):
 *         for v in g:
 *             xs.append(v)
 *         a, b = g
 *         return a in xs
 *
 * (co_code): FOR_ITER at 2, CALL_METHOD at 7, UNPACK_SEQUENCE at 11,
 * CONTAINS_OP at 16, one unit each. */
static const uint16_t plain310[] = {
    0x007c, 0x0044, 0x075d, 0x027d, 0x017c, 0x00a0, 0x027c, 0x01a1, 0x0001,
    0x0271, 0x007c, 0x025c, 0x037d, 0x047d, 0x037c, 0x017c, 0x0076, 0x0053,
};

Test(callsite, generators_are_resumed_from_calls_loops_unpacking_and_in_on_310)
{
    static const uint32_t spans[][2] = { { 2, 1 }, { 7, 1 }, { 11, 1 },
                                         { 16, 1 } };
    expect_built(&py310_layout, plain310, N(plain310), callsite_can_resume,
                 spans, 4);
}

/* 3.10 leaves f_lasti on an instruction's first EXTENDED_ARG.  As 3.10.13
 * compiles a loop whose body is 130 lines of "v = v":
 *
 *     LOAD_FAST 0; GET_ITER; EXTENDED_ARG 1; FOR_ITER 6; STORE_FAST 1;
 *     130 x (LOAD_FAST 1; STORE_FAST 1); JUMP_ABSOLUTE 2; LOAD_CONST 0;
 *     RETURN_VALUE */
Test(callsite, a_310_loop_stands_on_its_extended_arg)
{
    uint16_t code[268];
    uint32_t n = 0;
    code[n++] = 0x007c;
    code[n++] = 0x0044;
    code[n++] = 0x0190;
    code[n++] = 0x065d;
    code[n++] = 0x017d;
    for (int i = 0; i < 130; i++) {
        code[n++] = 0x017c;
        code[n++] = 0x017d;
    }
    code[n++] = 0x0271;
    code[n++] = 0x0064;
    code[n++] = 0x0053;
    cr_assert_eq(n, N(code));
    static const uint32_t spans[][2] = { { 2, 2 } };
    expect_built(&py310_layout, code, n, callsite_can_resume, spans, 1);
}

Test(callsite, calls_subscripts_and_generator_loops_on_312)
{
    /* BINARY_SUBSCR (1 cache) at 5, 22, 29; CALL (3) at 14; the inlined
     * comprehension's FOR_ITER (1) at 39. */
    static const uint32_t spans[][2] = { { 5, 2 }, { 14, 4 }, { 22, 2 },
                                         { 29, 2 }, { 39, 2 } };
    expect_built(&py312_layout, plain312, N(plain312), callsite_can_call,
                 spans, 5);
}

/* 3.14.10's
 *
 *     def f(xs, i):
 *         i += 1
 *         return xs[i]
 *
 * BINARY_OP (5 caches) at 3 with oparg 13 (+=) and at 11 with oparg 26
 * (NB_SUBSCR): only the subscript can push __getitem__ inline. */
static const uint16_t subscr314[] = {
    0x0080, 0x0156, 0x015e, 0x0d2c, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
    0x0170, 0x0157, 0x1a2c, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0023,
};

Test(callsite, only_the_subscript_form_of_binary_op_calls_on_314)
{
    static const uint32_t spans[][2] = { { 11, 6 } };
    struct py_layout l = { .opcodes = opcodes_314, .nb_subscr = 26 };
    expect_built(&l, subscr314, N(subscr314), callsite_can_call, spans, 1);
}

Test(callsite, an_unknown_opcode_or_a_cut_instruction_rules_nothing_out)
{
    struct callsite_map m;
    uint16_t code[N(plain312)];
    memcpy(code, plain312, sizeof code);
    code[26] = 0x00fe;             /* an opcode 3.12 does not have */
    callsite_build_from(&py312_layout, code, N(code), &m);
    cr_expect_null(m.bits);
    cr_expect_null(m.resumes);
    cr_expect(callsite_can_call(&m, 26));
    cr_expect(callsite_can_call(&m, 1000));
    cr_expect(callsite_can_resume(&m, 26));
    /* The last instruction cut off inside its caches. */
    callsite_build_from(&py312_layout, plain312, 16, &m);
    cr_expect_null(m.bits);
    /* Layouts without a table (free-threaded builds) build no map. */
    struct py_layout none = { .opcodes = NULL };
    callsite_build_from(&none, plain312, N(plain312), &m);
    cr_expect_null(m.bits);
}

Test(callsite, instrumented_code_is_not_checked)
{
    struct callsite_map m;
    uint16_t code[N(plain312)];
    memcpy(code, plain312, sizeof code);
    code[14] = (code[14] & 0xff00) | 241;   /* INSTRUMENTED_CALL */
    callsite_build_from(&py312_layout, code, N(code), &m);
    cr_expect_null(m.bits);
}
