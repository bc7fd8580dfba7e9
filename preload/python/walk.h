/*
 * walk.h — inside python/: what detection (detect.c) hands to the walk
 * (walk.c) once it has chosen the layout, and the guarded pointer read
 * both use.
 */
#ifndef PYPROF_PYTHON_WALK_H
#define PYPROF_PYTHON_WALK_H

#include <stdint.h>

#include "guard/safe_read.h"

struct py_layout;

/* The layout chosen, _PyRuntime's address and the layout's init shim
 * code object (0 if none).  Called once, by pyvm_detect on success;
 * until then pyvm_sample has nothing to walk.  -1: no memory for the
 * walk's scratch (nothing attached). */
int walk_attach(const struct py_layout *layout, uintptr_t runtime,
                 uintptr_t init_shim_code);

/* 3.10: where glibc's thread descriptor keeps the kernel tid (-2: not
 * found, threads keep tid 0); set by pyvm_ready in the sampler thread. */
void walk_thread_id_at(int offset);

/* *addr through safe_read; a failed read clears *ok and gives 0. */
static inline uintptr_t rd_ptr(uintptr_t addr, int *ok)
{
    uintptr_t v = 0;
    if (safe_read_ptr(addr, &v) != 0)
        *ok = 0;
    return v;
}

#endif
