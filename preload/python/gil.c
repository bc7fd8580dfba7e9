/*
 * gil.c — reading a GIL's holder and marks (gil.h) through the guarded
 * read, at the layout's offsets.
 */
#include "python/gil.h"
#include "python/layout/layout.h"
#include "python/walk.h"

uintptr_t gil_holder(const struct py_layout *l, uintptr_t runtime,
                     uintptr_t interp, uintptr_t *gil, int *ok)
{
    *gil = 0;
    if (l->gil == GIL_RUNTIME_TSTATE) {
        if (l->rt_gil && l->gil_switches)
            *gil = runtime + l->rt_gil;
        return rd_ptr(runtime + l->rt_gil_tstate, ok);
    }
    if (l->gil == GIL_NONE)
        return 0;
    uintptr_t g = rd_ptr(interp + l->is_gil_ptr, ok);
    if (!g)
        return 0;
    if (l->gil_switches)
        *gil = g;
    int32_t locked = 0;
    if (safe_read(&locked, g + l->gil_locked, sizeof locked) != 0 || !locked)
        return 0;
    return rd_ptr(g + l->gil_holder, ok);
}

int gil_mark(const struct py_layout *l, uintptr_t gil, struct gil_mark *m)
{
    int ok = 1;
    m->holder = rd_ptr(gil + l->gil_holder, &ok);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    m->switches = rd_ptr(gil + l->gil_switches, &ok);
    return ok;
}
