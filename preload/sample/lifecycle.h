/*
 * lifecycle.h — the states of this process image's profile, the moves
 * between them, which thread makes each, and how the state is shared.
 *
 *   DORMANT    no supported interpreter seen (yet).  Every process starts
 *              here, and most (sh, cc, make) stay.
 *   STARTING   an interpreter was found; the read guard, the exit hooks and
 *              the sampler thread are being set up.
 *   OFF        not profiled, for good.
 *   SAMPLING   the sampler thread runs.  Its file is begun once has_file
 *              is set (its first tick with an initialized interpreter, or
 *              its end); until then it waits for the interpreter.  A fork
 *              child's begun file is created only past its spawn window
 *              (PP_SPAWN_WINDOW_NS), at its first write, or at its end.
 *   FINISHING  one thread posted the end and waits, bounded, for the
 *              sampler to write it and stop; any other thread that wants
 *              to finish meanwhile waits for the same acknowledgement.
 *   ENDED      END written (or the file discarded) and the sampler gone, or
 *              the wait ran out.
 *
 *   from       to         made by                     when
 *   DORMANT    STARTING   the thread that detects     a supported interpreter
 *                         (the constructor's, or one  is found
 *                         that called dlopen), by
 *                         compare-and-swap
 *   DORMANT    OFF        the same, by c-a-s          one this library cannot
 *                                                     read
 *   STARTING   SAMPLING   the same thread             the sampler started
 *   STARTING   OFF        the same thread             PYPROF_ONLY does not
 *                                                     match, no libzstd, no
 *                                                     safe read, no thread,
 *                                                     a fork child under
 *                                                     PYPROF_FOLLOW=0
 *   SAMPLING   FINISHING  the thread that finishes    exit, _exit, a fatal
 *                         (never the sampler, never   signal's default action,
 *                         a vfork child), by c-a-s    exec, the destructor
 *   FINISHING  ENDED      the same thread             acknowledged or timed out
 *   ENDED      SAMPLING   the thread whose exec       the old sampler is gone
 *                         failed                      and a new one started
 *   (any)      STARTING   a fork child's only thread  fork: a new image
 *
 * Pauses, which are not states: across fork() the forking thread holds the
 * sampler between two ticks (sampler_pause/sampler_resume); across exec
 * the image goes FINISHING -> ENDED (END with how = exec) and, if the exec
 * fails, back to SAMPLING in the same file; across a fork child's exec at
 * once, before its sampler created a file, the exec'ing thread holds the
 * sampler between two ticks instead (sampler_hold_unopened), and lets it
 * go on if the exec fails.
 *
 * Shared fields, both C11 atomics, read from any thread, a vfork child or
 * a signal handler (async-signal-safe):
 *   phase     enum pp_phase; written only by the moves above.
 *   has_file  this image's file is begun (a child may name it as parent;
 *             it is created before the image ends, unless an exec at
 *             once drops it); written only by the sampler thread (file
 *             begun, discarded, or not creatable) and by a fork child
 *             before its sampler starts.
 *   exec_held an exec at once of a fork child holds its sampler, which has
 *             created no file (pp_before_exec): the image is not nameable
 *             as a parent; written only by the exec'ing thread.
 * Everything else about the sampler (its thread id, the end request and
 * its acknowledgement, its counters) is private to sampler.c.
 */
#ifndef PYPROF_LIFECYCLE_H
#define PYPROF_LIFECYCLE_H

/* A fork child that execs within this long of its fork is one spawn with
 * the program it execs and leaves no file (pyprof(7), Following
 * children); until then its sampler makes its file only when it must. */
#define PP_SPAWN_WINDOW_NS 20000000ULL

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
    _Atomic int exec_held;   /* an exec that leaves no file is under way */
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
 * writes the END record (how = exec) so the file is complete; but a fork
 * child's exec at once whose sampler has made no file yet only holds the
 * sampler between two ticks (the exec ends it with the image).  Returns a
 * token for pp_exec_failed.  Async-signal-safe in the vfork child case
 * (it then only compares getpid() with pp_state.pid and returns). */
int pp_before_exec(void);
/* The exec returned (failed): ENDED -> SAMPLING in the same file, or the
 * held sampler goes on. */
void pp_exec_failed(int token);

/* SAMPLING -> FINISHING -> ENDED: END record with how/value (enum
 * pp_end_how).  Safe to call more than once, from any thread but the
 * sampler's; the first call wins. */
void pp_finish(int how, int value);

#endif
