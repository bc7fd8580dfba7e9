/*
 * asyncio_tasks.h — the asyncio task a thread is running and the tasks
 * that await it, each with where it waits (pyprof(7), "asyncio tasks").
 *
 * From 3.14 the thread state names its running task, a task names the
 * task that awaits it, and the _asyncio module describes its Task layout
 * in a section of its own file (.AsyncioDebug), which is looked for in the
 * loaded files (/proc/self/maps): at start, and again after a dlopen,
 * since _asyncio is an extension module that `import asyncio` loads.
 * Used by the sampler thread only; every read of the program's memory goes
 * through safe_read.
 */
#ifndef PYPROF_ASYNCIO_TASKS_H
#define PYPROF_ASYNCIO_TASKS_H

#include <stdint.h>

#include "python/pyvm.h"

struct py_layout;

/* coro_type, str_type: the interpreter's PyCoro_Type and PyUnicode_Type
 * (0 if not found: tasks are then not read).  Called by pyvm_detect. */
void asyncio_tasks_attach(const struct py_layout *l, uintptr_t coro_type,
                          uintptr_t str_type);

/* A file was loaded (the dlopen hook): the next asyncio_tasks_ready looks
 * for the section again if it has not found it.  Async-signal-safe. */
void asyncio_tasks_loaded(void);

/* Whether tasks can be read; looks for the section when something was
 * loaded since the last look. */
int asyncio_tasks_ready(void);

/* The section's 13 offsets, as if found (the unit tests' forged tasks);
 * 0 when they are not plausible. */
int asyncio_tasks_use(const uint64_t offsets[13]);

#define TASK_CHAIN_MAX 16    /* tasks: the running one and its awaiters  */
#define TASK_AWAIT_MAX 32    /* frames of one awaiting task's await stack */
#define TASK_NAME_MAX  64

struct task_link {
    char name[TASK_NAME_MAX];   /* "" for asyncio's default names (Task-N) */
    unsigned nframes;           /* where it awaits, innermost first; 0 for
                                   the running task (its frames are the
                                   thread's own)                          */
    struct pyvm_frame frames[TASK_AWAIT_MAX];
};

struct task_chain {
    uintptr_t frame;            /* the running task's coroutine frame      */
    unsigned n;                 /* links[0]: the running task; links[i+1]
                                   awaits links[i]                        */
    struct task_link links[TASK_CHAIN_MAX];
};

/* The task thread state tstate is running and the chain of tasks awaiting
 * it.  Returns 1 with *c filled, 0 when the thread runs no task (or tasks
 * cannot be read, or what was read is not a task). */
int asyncio_task_chain(uintptr_t tstate, struct task_chain *c);

/* Tasks looked at in a thread's list of pending tasks, at most. */
#define TASK_LIST_MAX 16384

/* The pending tasks of the event loop thread state tstate runs (the list
 * the _asyncio module keeps per thread), but the one running: every
 * stride-th of the list from the phase-th, at most cap of them, into
 * tasks; *total: the list's length as read (at most TASK_LIST_MAX).
 * Returns how many were put in tasks. */
unsigned asyncio_pending_tasks(uintptr_t tstate, unsigned stride, unsigned phase,
                               uintptr_t *tasks, unsigned cap, unsigned *total);

/* A pending task's chain: links[0] the task with where it waits (its
 * await stack), then the tasks awaiting it, each with where it waits;
 * c->frame 0.  Returns 1 with *c filled, 0 if task is not a suspended
 * task or its await stack cannot be read. */
int asyncio_waiting_chain(uintptr_t task, struct task_chain *c);

#endif
