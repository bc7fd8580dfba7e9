/*
 * state.h — what one process image knows about itself.  Filled by the
 * constructor (preload.c), refreshed in the fork child (hooks_fork.c), read
 * by the sampler, the writer and the hooks.  No locks: fields change only
 * in the constructor, in an atfork child handler (single-threaded), or are
 * atomics.
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
    int      active;       /* sampler running and a file is open           */
    char     preload_path[4096]; /* absolute path of libpyprof.so          */
};

extern struct pp_state pp_state;

/* 64 random bits (getrandom, falling back to time and pid). */
uint64_t pp_new_uid(void);

#endif
