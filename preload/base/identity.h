/*
 * identity.h — who this process image is: its pid, its unique id, who
 * started it and how, the library's own path, its argv.  Filled by the
 * constructor (constructor.c) and refreshed in a fork child by the fork
 * wrapper (hooks/fork.c) before the child's sampler starts, both while
 * the image has one thread of ours to care about; read by every layer.
 * Nothing here says whether the image is profiled: that is its profile's
 * state (sample/lifecycle.h).
 *
 * One exception to "written at start only": when an exec from a fork
 * child that never sampled discards the child's file, the exec hook
 * (pp_before_exec) points inherited_parent at the child's own parent, on
 * the thread about to exec, so that the exec'd program names it.
 */
#ifndef PYPROF_IDENTITY_H
#define PYPROF_IDENTITY_H

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
    uint64_t forked_ns;    /* CLOCK_MONOTONIC at the fork call, in a child */
    char   **argv;         /* the program's argv, as the constructor got it */
    char    *preload_path; /* absolute path of libpyprof.so: the loader's
                              own name of it, or realpath's of a relative
                              one in a 4096-byte buffer out of the struct
                              (base/child_writes.h); read only after start */
    /* PYPROF_PARENT as this process received it ("" if absent).  Passed on
     * unchanged by processes that are not profiled images themselves
     * (sh, env, make), so a Python grandchild names the nearest profiled
     * ancestor as its parent. */
    char     inherited_parent[40];
};

/* PYPROF_PARENT=<uid as 16 lowercase hex digits>:<enum pp_started_by digit>
 * is what an exec/spawn hook puts into the environment it passes on:
 *   - the caller is this profiled image itself (getpid() == pp_state.pid,
 *     its profile names it: pp_profile_nameable()): execve -> "<uid>:2"
 *     (exec), posix_spawn/system/popen -> "<uid>:3" (spawn);
 *   - a vfork/clone child of a profiled image (getpid() != pp_state.pid):
 *     "<uid>:3" (spawn);
 *   - a process that is not a profiled image: inherited_parent unchanged.
 * The constructor reads it back: absent -> started_by root. */
#define PP_ENV_PARENT "PYPROF_PARENT"

/* Formats "<uid>:<how>" into buf (at least 20 bytes); async-signal-safe. */
void pp_format_parent(char *buf, uint64_t uid, int how);

extern struct pp_state pp_state;

/* 64 random bits (getrandom, falling back to time and pid). */
uint64_t pp_new_uid(void);

/* A fork child's id, made from its parent's (random), its pid and the
 * time of the fork, without a system call: a child that exits at once
 * would otherwise fault in getrandom's page of the C library for it
 * (pyprof(7), "Timing and cost").  Distinct for every child of a parent
 * (pid and time) and for children of distinct parents (their ids). */
uint64_t pp_child_uid(uint64_t parent, pid_t pid, uint64_t at_ns);

#endif
