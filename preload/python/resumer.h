/*
 * resumer.h — 3.12: the innermost frame of a thread whose current-frame
 * pointer names a generator frame with no caller link (a generator being
 * resumed, or one that has just yielded, in the instructions where the
 * compiled interpreter has stored one of the two and not the other).
 */
#ifndef PYPROF_PYTHON_RESUMER_H
#define PYPROF_PYTHON_RESUMER_H

#include <stdint.h>

struct py_layout;

/* The thread's innermost Python frame while gen_frame, a generator frame
 * with no caller, is not running: the innermost of the innermost running
 * generator (the one tstate->exc_info names) and the data stack's top
 * frame, the other being in its chain.  0 when that cannot be told (the
 * two unrelated, a read failed, the layout does not say where they are).
 * Only meaningful on memory that did not change while it was read: the
 * caller proves the thread did not run. */
uintptr_t resumer_frame(const struct py_layout *L, uintptr_t tstate,
                        uintptr_t gen_frame);

#endif
