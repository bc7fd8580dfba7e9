/*
 * gil.h — what a GIL's state says about which thread ran: its last holder
 * and its count of switches, which CPython keeps on every build with a
 * GIL (3.10 and 3.11 in the runtime state, 3.12 on per interpreter).
 *
 * A thread runs Python code only while it holds the GIL, and taking it
 * makes the thread its last holder and, unless it was already, counts a
 * switch.  So while another thread stays the last holder and the count
 * does not move, the thread runs no Python code and its frames do not
 * change (pyprof(7), "Consistent stacks").
 */
#ifndef PYPROF_PYTHON_GIL_H
#define PYPROF_PYTHON_GIL_H

#include <stdint.h>

struct py_layout;

struct gil_mark {
    uintptr_t holder;           /* the GIL's last holder (a thread state) */
    unsigned long switches;
};

/* The thread state holding interp's GIL now (0: none, or not known), and
 * in *gil the address of the GIL's state where its marks can be read
 * (0 where they cannot: free-threaded builds).  A failed read clears *ok. */
uintptr_t gil_holder(const struct py_layout *l, uintptr_t runtime,
                     uintptr_t interp, uintptr_t *gil, int *ok);

/* Reads the GIL's mark (holder first); 0 when a read failed. */
int gil_mark(const struct py_layout *l, uintptr_t gil, struct gil_mark *m);

/* Whether tstate could not have run Python code between marks a and b:
 * another thread was the last holder at both and no switch was counted
 * between.  Only the last holder's taking the GIL back goes uncounted, so
 * a thread that is the last holder itself is never proved quiet. */
static inline int gil_quiet(uintptr_t tstate, const struct gil_mark *a,
                            const struct gil_mark *b)
{
    return a->holder && a->holder != tstate && b->holder == a->holder &&
           b->switches == a->switches;
}

#endif
