/*
 * lifecycle.h — the states of this process image's profile, the moves
 * between them, which thread makes each, and how the state is shared.
 *
 *                 interpreter found (detect)          sampler_start failed,
 *   DORMANT ─────────────────────────────► STARTING ─► OFF  PYPROF_ONLY, no
 *      │  no interpreter: stays (a dlopen      │            zstd, no guard
 *      │  may bring one)                        │ sampler thread started
 *      └─ unsupported interpreter ─► OFF        ▼
 *                                           SAMPLING ◄───────────────┐
 *                                              │ pp_finish (exit,      │
 *                                              │ _exit, fatal signal,  │ exec
 *                                              │ exec, destructor)     │ failed
 *                                              ▼                       │
 *                                          FINISHING ─► ENDED ─────────┘
 *
 *   DORMANT   no supported interpreter seen yet; every process starts so
 *             and most (sh, cc, make) stay so.  Made by: nobody (zero).
 *   STARTING  an interpreter was found; the guard, the exit hooks and the
 *             sampler are being set up.  Made by: the thread that found it
 *             (the constructor's, or one that called dlopen), by one
 *             compare-and-swap from DORMANT, so two dlopens cannot both
 *             start; in a fork child by the fork wrapper (child only).
 *   OFF       not profiled, for good (unsupported version, PYPROF_ONLY, no
 *             libzstd, no safe read, no thread).  Made by: the STARTING
 *             thread, or the detecting thread from DORMANT.
 *   SAMPLING  the sampler thread runs.  Its file exists once has_file is
 *             set (at its first tick with a ready interpreter); before,
 *             it waits for the interpreter.  Made by: the STARTING thread,
 *             or the thread whose exec failed (from ENDED).
 *   FINISHING one thread (exit, _exit, a fatal signal's handler, an exec
 *             hook, the destructor) posted the end and waits, bounded, for
 *             the sampler's acknowledgement; others that want to finish
 *             meanwhile wait for the same acknowledgement.  Made by: that
 *             thread, by compare-and-swap from SAMPLING.  Never by the
 *             sampler thread itself, nor by a vfork child (getpid() differs
 *             from pp_state.pid).
 *   ENDED     the sampler wrote END (or discarded the file) and stopped, or
 *             the wait ran out.  Made by: the FINISHING thread.
 *
 * Pauses, which are not states: across fork() the forking thread holds the
 * sampler between ticks (sampler_pause/sampler_resume: the tick lock), and
 * the child, which has no sampler thread, is a new image that goes from
 * STARTING again.  Across exec the image goes FINISHING -> ENDED (END with
 * how = exec) and back to SAMPLING, in the same file, if the exec fails.
 *
 * Shared fields, all C11 atomics (read from any thread, a vfork child or a
 * signal handler; async-signal-safe):
 *   phase     enum pp_phase; written only by the transitions above.
 *   has_file  this image's file exists (so a child may name it as parent);
 *             written only by the sampler thread (file created, file
 *             discarded) and by the fork child before its sampler starts.
 * Everything else about the sampler (its thread id, the finish request,
 * the acknowledgement, its counters) is private to sampler.c.
 */
#ifndef PYPROF_LIFECYCLE_H
#define PYPROF_LIFECYCLE_H

#include <stdatomic.h>

enum pp_phase {
    PP_DORMANT = 0,
    PP_STARTING,
    PP_OFF,
    PP_SAMPLING,
    PP_FINISHING,
    PP_ENDED,
};

struct pp_profile {
    _Atomic int phase;       /* enum pp_phase */
    _Atomic int has_file;
};

extern struct pp_profile pp_profile;

/* DORMANT -> STARTING (found = 1) or -> OFF (found = -1: an interpreter
 * this library cannot read).  Returns whether this call made the move:
 * 0 when an interpreter was seen before. */
int pp_profile_found(int found);

/* In a fork child (its only thread): a new image, STARTING, no file. */
void pp_profile_after_fork(void);

/* STARTING -> OFF: the image cannot be profiled after all. */
void pp_not_started(void);

/* Whether an interpreter was seen (any phase but DORMANT). */
int pp_profile_seen(void);

/* The sampler thread runs or is being stopped: SAMPLING or FINISHING. */
int pp_profile_sampling(void);

/* Whether a child started now should name this image as its parent: it
 * samples (its file exists, or will at its first tick or its end at the
 * latest) or its file exists. */
int pp_profile_nameable(void);

/* STARTING -> SAMPLING (starts the sampler thread) or -> OFF if it could
 * not start.  started_by: enum pp_started_by, recorded in pp_state. */
void pp_start(int started_by);

/* Before an exec from this image: if the calling process is the image
 * itself (not a vfork child sharing our memory), stops the sampler and
 * writes the END record (how = exec) so the file is complete.  Returns a
 * token for pp_exec_failed.  Async-signal-safe in the vfork child case
 * (it then only compares getpid() with pp_state.pid and returns). */
int pp_before_exec(void);
/* The exec returned (failed): ENDED -> SAMPLING in the same file. */
void pp_exec_failed(int token);

/* SAMPLING -> FINISHING -> ENDED: END record with how/value (enum
 * pp_end_how).  Safe to call more than once, from any thread but the
 * sampler's; the first call wins. */
void pp_finish(int how, int value);

#endif
