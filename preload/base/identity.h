/*
 * state.h — what one process image knows about itself.  Filled by the
 * constructor (preload.c), refreshed by the fork wrapper in the child
 * (hooks_fork.c), read by the sampler, the writer and the hooks.  No locks
 * and no atomics: the identity fields change only while the process has
 * one thread (constructor, fork child); `sampling` is also written by
 * pp_finish and pp_exec_failed (sampler.c) on whichever thread ends the
 * profile, one at a time through their `finishing` flag, and `active` by
 * the sampler thread when the file is opened or dropped.  Readers on other
 * threads may see those two late.
 */
#ifndef PYPROF_STATE_H
#define PYPROF_STATE_H

#include <stdint.h>
#include <sys/types.h>

#define PP_EXPORT __attribute__((visibility("default")))

struct pp_state {
    pid_t    pid;          /* getpid() of this image; differs from getpid()
                              in a vfork/posix_spawn child                 */
    pid_t    ppid;
    uint64_t uid;          /* unique id of this image (file name, header)  */
    uint64_t parent_uid;   /* uid of the profiled image that started us, 0 */
    int      started_by;   /* enum pp_started_by                           */
    int      is_python;    /* a supported CPython lives in this process    */
    int      sampling;     /* the sampler thread runs (or is starting)     */
    volatile int active;   /* this image's file exists: it has an uid that
                              names a file, so children may name it parent */
    char     preload_path[4096]; /* absolute path of libpyprof.so          */
    /* PYPROF_PARENT as this process received it ("" if absent).  Passed on
     * unchanged by processes that are not profiled images themselves
     * (sh, env, make), so a Python grandchild names the nearest profiled
     * ancestor as its parent. */
    char     inherited_parent[40];
};

/* PYPROF_PARENT=<uid as 16 lowercase hex digits>:<enum pp_started_by digit>
 * is what an exec/spawn hook puts into the environment it passes on:
 *   - the caller is this profiled image itself (getpid() == pp_state.pid,
 *     pp_state.active): execve -> "<uid>:2" (exec), posix_spawn/system/
 *     popen -> "<uid>:3" (spawn);
 *   - a vfork/clone child of a profiled image (getpid() != pp_state.pid,
 *     pp_state.active): "<uid>:3" (spawn);
 *   - a process that is not a profiled image: inherited_parent unchanged.
 * The constructor reads it back: absent -> started_by root. */
#define PP_ENV_PARENT "PYPROF_PARENT"

/* Formats "<uid>:<how>" into buf (at least 20 bytes); async-signal-safe. */
void pp_format_parent(char *buf, uint64_t uid, int how);

extern struct pp_state pp_state;

/* 64 random bits (getrandom, falling back to time and pid). */
uint64_t pp_new_uid(void);

#endif
