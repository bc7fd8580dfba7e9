/*
 * task_frames.h — a sampled thread's stack with the asyncio tasks it runs
 * in (pyprof(7), "asyncio tasks"): where the running task's coroutine
 * stands on the thread's stack, the pseudo-frame <task NAME> goes below
 * it, and below that, for each task awaiting it in turn, the frames where
 * that task awaits and its own <task NAME>; the thread's frames that run
 * the event loop stay outermost.  Used by the sampler thread only.
 */
#ifndef PYPROF_TASK_FRAMES_H
#define PYPROF_TASK_FRAMES_H

#include "python/pyvm.h"

/* t with its tasks, or t itself (no task, tasks not readable, the task's
 * frame not on t's stack, no memory).  *spliced: whether it has them.
 * Valid until the next call. */
const struct pyvm_thread *task_frames(const struct pyvm_thread *t, int *spliced);

struct task_chain;

/* A pending task's stack as a thread's (pyprof(5), TASK_WAIT): where it
 * waits, innermost first, its <task NAME>, each awaiting task's await
 * stack and <task NAME>, and outermost the pseudo-frame <waiting tasks>;
 * the rest of *loop (the thread whose loop owns the task) but its frames
 * and flags.  NULL without memory.  Valid until the next call of this or
 * task_frames. */
const struct pyvm_thread *task_wait_frames(const struct task_chain *c,
                                           const struct pyvm_thread *loop);

#endif
