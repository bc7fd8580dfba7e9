/*
 * test_gil.c — what a GIL's state says about who ran (python/gil.h), read
 * from memory forged at the offsets of the 3.11 layout (the GIL's state
 * inside the runtime state) and the 3.12 layout (a GIL per interpreter,
 * through a pointer); and the rule that proves a thread did not run.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/gil.h"
#include "python/layout/layout.h"

struct obj { uintptr_t w[128]; };

static struct obj runtime, interp, gil;

static void put(void *base, uint32_t off, const void *v, size_t n)
{
    memcpy((uint8_t *)base + off, v, n);
}

static void put_ptr(void *base, uint32_t off, uintptr_t v)
{
    put(base, off, &v, sizeof v);
}

/* A GIL state: last holder, locked or not, switch count. */
static void gil_state(void *g, uintptr_t holder, int32_t locked,
                      unsigned long switches, const struct py_layout *l)
{
    put_ptr(g, l->gil_holder, holder);
    put(g, l->gil_locked, &locked, sizeof locked);
    put_ptr(g, l->gil_switches, switches);
}

Test(gil, the_311_gil_is_read_inside_the_runtime_state)
{
    const struct py_layout *l = &py311_layout;
    uintptr_t rt = (uintptr_t)&runtime, g = 0;
    int ok = 1;
    memset(&runtime, 0, sizeof runtime);
    put_ptr(&runtime, l->rt_gil_tstate, 0x5000);
    gil_state((uint8_t *)&runtime + l->rt_gil, 0x5000, 1, 7, l);
    cr_expect_eq(gil_holder(l, rt, 0, &g, &ok), 0x5000);
    cr_expect_eq(g, rt + l->rt_gil);
    cr_expect(ok);
    struct gil_mark m;
    cr_expect(gil_mark(l, g, &m));
    cr_expect_eq(m.holder, 0x5000);
    cr_expect_eq(m.switches, 7);
}

Test(gil, the_312_gil_is_read_through_the_interpreter)
{
    const struct py_layout *l = &py312_layout;
    uintptr_t g = 0;
    int ok = 1;
    memset(&interp, 0, sizeof interp);
    put_ptr(&interp, l->is_gil_ptr, (uintptr_t)&gil);
    gil_state(&gil, 0x6000, 1, 42, l);
    cr_expect_eq(gil_holder(l, 0, (uintptr_t)&interp, &g, &ok), 0x6000);
    cr_expect_eq(g, (uintptr_t)&gil);
    /* Released: nobody holds it, and its marks are still there. */
    gil_state(&gil, 0x6000, 0, 42, l);
    cr_expect_eq(gil_holder(l, 0, (uintptr_t)&interp, &g, &ok), 0);
    cr_expect_eq(g, (uintptr_t)&gil);
    struct gil_mark m;
    cr_expect(gil_mark(l, g, &m));
    cr_expect_eq(m.holder, 0x6000);
    cr_expect_eq(m.switches, 42);
    /* An unreadable GIL state gives no mark. */
    cr_expect_not(gil_mark(l, 8, &m));
}

Test(gil, a_free_threaded_build_has_no_marks)
{
    struct py_layout l = py312_layout;
    uintptr_t g = 1;
    int ok = 1;
    l.gil = GIL_NONE;
    cr_expect_eq(gil_holder(&l, 0, (uintptr_t)&interp, &g, &ok), 0);
    cr_expect_eq(g, 0);
}

/* Only another thread's staying the last holder, with no switch between
 * the marks, proves a thread did not run: its own taking the GIL back is
 * not counted, and any other switch may have been its turn. */
Test(gil, quiet_only_while_another_thread_stays_the_last_holder)
{
    const uintptr_t me = 0x1000, other = 0x2000, third = 0x3000;
    struct gil_mark a = { other, 5 }, b = { other, 5 };
    cr_expect(gil_quiet(me, &a, &b));
    b.switches = 6;                         /* someone took it meanwhile */
    cr_expect_not(gil_quiet(me, &a, &b));
    b = (struct gil_mark){ me, 6 };         /* this thread took it */
    cr_expect_not(gil_quiet(me, &a, &b));
    b = (struct gil_mark){ third, 5 };      /* a torn pair of reads */
    cr_expect_not(gil_quiet(me, &a, &b));
    a = b = (struct gil_mark){ me, 5 };     /* its own, retaken uncounted */
    cr_expect_not(gil_quiet(me, &a, &b));
    a = b = (struct gil_mark){ 0, 5 };      /* never held */
    cr_expect_not(gil_quiet(me, &a, &b));
}
