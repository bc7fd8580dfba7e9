/*
 * interp_join.h — one sample per thread when it runs in a subinterpreter.
 *
 * A thread that calls into a subinterpreter (interp.exec, an
 * InterpreterPoolExecutor task) gets a thread state there, often a new
 * one for every call, and keeps its state in the calling interpreter,
 * whose frames wait in the call.  A tick reads both.  The subinterpreter's
 * sample is held here until the caller's state of the same thread comes
 * (CPython lists interpreters newest first, the main one last) and both
 * become one stack: the caller's frames, a pseudo-frame naming the
 * interpreter entered, the subinterpreter's frames (pyprof(7),
 * "Subinterpreters").  Used by the sampler thread only.
 */
#ifndef PYPROF_INTERP_JOIN_H
#define PYPROF_INTERP_JOIN_H

#include <stdint.h>

#include "python/pyvm.h"

/* Forgets what the previous tick held. */
void interp_join_begin(void);

/* Holds t, a sample of a thread state of a subinterpreter (t->interp !=
 * 0).  Returns 0 when it could not be held (no memory, too many at once):
 * the caller then takes it as it is, through interp_join_lone. */
int interp_join_hold(const struct pyvm_thread *t);

/* t, a main-interpreter sample, joined with what its thread runs in a
 * subinterpreter, or t itself when nothing is held for its thread.  The
 * result is valid until the next call. */
const struct pyvm_thread *interp_join_with(const struct pyvm_thread *t);

/* The caller's state of thread tid (a state other than the one held) was
 * dropped as torn: the held sample lost its callers and is dropped too. */
void interp_join_drop(uint32_t tid, uintptr_t tstate);

/* t (a subinterpreter's sample that was not held) with the interpreter's
 * pseudo-frame as its root.  Valid until the next call. */
const struct pyvm_thread *interp_join_alone(const struct pyvm_thread *t);

/* The held samples no caller's state came for (a thread started inside a
 * subinterpreter, a caller whose state had no frame), one per call, as
 * interp_join_alone gives them; NULL when none is left. */
const struct pyvm_thread *interp_join_leftover(void);

#endif
