/*
 * test_exc_state.c — whether a thread raises or handles an exception
 * (python/exc_state.h), read from thread states and _PyErr_StackItem
 * chains forged at the offsets of the 3.10, 3.11 and 3.12 layouts.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "guard/safe_read.h"
#include "pyprof/format.h"
#include "python/exc_state.h"
#include "python/layout/layout.h"

static uintptr_t ts[64], items[4][4];
static uintptr_t none_obj[2], an_exception[2];

static void put_ptr(void *base, uint32_t off, uintptr_t v)
{
    memcpy((uint8_t *)base + off, &v, sizeof v);
}

/* Item k holds value and links to item k + 1 (the last to nothing). */
static void chain(const struct py_layout *l, const uintptr_t *values, int n)
{
    memset(items, 0, sizeof items);
    for (int k = 0; k < n; k++) {
        put_ptr(items[k], l->exc.item_value, values[k]);
        put_ptr(items[k], l->exc.item_previous,
                k + 1 < n ? (uintptr_t)items[k + 1] : 0);
    }
    put_ptr(ts, l->exc.ts_exc_info, n ? (uintptr_t)items[0] : 0);
}

static void each_layout(void (*check)(const struct py_layout *))
{
    cr_assert(safe_read_init() == 0);
    const struct py_layout *ls[] = { &py310_layout, &py311_layout, &py312_layout };
    for (size_t i = 0; i < 3; i++) {
        memset(ts, 0, sizeof ts);
        cr_assert_leq(ls[i]->exc.ts_exc_info + 8, ls[i]->ts_read);
        exc_state_attach(ls[i], (uintptr_t)none_obj);
        check(ls[i]);
    }
}

static void raising(const struct py_layout *l)
{
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0, "3.%d: nothing set", l->minor);
    put_ptr(ts, l->exc.ts_current, (uintptr_t)an_exception);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), PP_SAMPLE_EXCEPTION,
                 "3.%d: an exception set", l->minor);
}

Test(exc_state, an_exception_being_raised_sets_the_flag)
{
    each_layout(raising);
}

static void handling(const struct py_layout *l)
{
    /* a generator's empty item above the thread's own, which handles */
    chain(l, (uintptr_t[]){ 0, (uintptr_t)none_obj, (uintptr_t)an_exception }, 3);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), PP_SAMPLE_EXCEPTION,
                 "3.%d: handled two items down", l->minor);
    chain(l, (uintptr_t[]){ (uintptr_t)none_obj, 0, (uintptr_t)none_obj }, 3);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0, "3.%d: only None", l->minor);
    chain(l, NULL, 0);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0, "3.%d: no item", l->minor);
}

Test(exc_state, an_except_block_anywhere_in_the_chain_sets_the_flag)
{
    each_layout(handling);
}

static void damaged(const struct py_layout *l)
{
    /* a cycle of empty items ends; an unreadable item is no exception */
    chain(l, (uintptr_t[]){ 0, 0 }, 2);
    put_ptr(items[1], l->exc.item_previous, (uintptr_t)items[0]);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0, "3.%d: a cycle", l->minor);
    put_ptr(ts, l->exc.ts_exc_info, 0x10);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0, "3.%d: unreadable", l->minor);
}

Test(exc_state, a_damaged_chain_is_read_within_bounds)
{
    each_layout(damaged);
}

Test(exc_state, without_none_the_flag_is_never_set)
{
    cr_assert(safe_read_init() == 0);
    memset(ts, 0, sizeof ts);
    exc_state_attach(&py312_layout, 0);
    put_ptr(ts, py312_layout.exc.ts_current, (uintptr_t)an_exception);
    cr_expect_eq(exc_state_flag((uint8_t *)ts), 0);
}
