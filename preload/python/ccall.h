/*
 * ccall.h — the C function a Python frame stands calling (3.14+): a
 * builtin, a method of a C type, an extension's function, named as
 * cProfile names them, for a pseudo-frame on top of the frame (pyprof(7),
 * "C calls").
 *
 * From 3.14 the interpreter writes a frame's stack pointer into the frame
 * before every call that can run other code, and leaves the call's
 * callable and arguments on the stack while it runs.  A frame standing on
 * a call instruction whose written stack pointer is where the call's
 * inputs end (stackdepth.h: the depth there is the compiler's, one per
 * instruction) is inside that call, and the callable is read from its
 * place under the arguments.  The same instruction's stack pointer after
 * the call (the result pushed, waiting for the GIL at the eval breaker)
 * or before it (still the last call's) is elsewhere: no pseudo-frame.
 * Before 3.14 the frame keeps no stack pointer while it runs (stacktop
 * is -1): not read.
 */
#ifndef PYPROF_CCALL_H
#define PYPROF_CCALL_H

#include <stdint.h>

struct code_info;
struct py_layout;
struct raw_frame;

/* The layout and the addresses of builtin_function_or_method (PyCFunction
 * and PyCMethod), method_descriptor and classmethod_descriptor; called
 * once, by pyvm_detect.  Without a stack table nothing is read. */
void ccall_attach(const struct py_layout *l, uintptr_t cfunction,
                  uintptr_t cmethod, uintptr_t method_descr,
                  uintptr_t classmethod_descr, uintptr_t str_type);

/* The pseudo-frame of the C function rf (a resolved Python frame, read
 * just before) is calling, or NULL: for the innermost frame, where the
 * time goes; for a frame whose callee was entered from C, the C function
 * that called it back (sorted calling its key).  Valid while
 * ccall_generation() is unchanged. */
struct code_info *ccall_callee(const struct raw_frame *rf);

/* Changes whenever a pseudo-frame given out may have been reused. */
uint32_t ccall_generation(void);

#endif
