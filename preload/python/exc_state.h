/*
 * exc_state.h — whether a thread is raising or handling an exception
 * (PP_SAMPLE_EXCEPTION; pyprof(7), "Exceptions").
 */
#ifndef PYPROF_EXC_STATE_H
#define PYPROF_EXC_STATE_H

#include <stdint.h>

struct py_layout;

/* none: the address of the interpreter's None (0: not known, and the flag
 * is never set).  Called by pyvm_detect. */
void exc_state_attach(const struct py_layout *l, uintptr_t none);

/* PP_SAMPLE_EXCEPTION or 0 for the thread state whose copy is ts (at
 * least the layout's ts_read bytes): it has an exception set (being
 * raised, not yet caught), or sys.exc_info() would be non-empty in it
 * (an except block runs in one of its frames or their callers). */
unsigned exc_state_flag(const uint8_t *ts);

#endif
