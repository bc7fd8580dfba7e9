/*
 * sampler.h — the sampler thread.  A POSIX timer (timer_create with
 * SIGEV_THREAD_ID) sends PP_TIMER_SIG to this thread alone; the thread
 * blocks it and takes it with sigwaitinfo, so no application thread ever
 * sees a profiler signal and no application syscall is interrupted.
 * Finish/stop requests from other threads arrive the same way (tgkill).
 */
#ifndef PYPROF_SAMPLER_H
#define PYPROF_SAMPLER_H

#include <signal.h>
#include <stdint.h>

#include "pyprof/timer_tag.h"           /* PP_TIMER_SIG */

/* Starts the thread (the file must be open). 0 or -1. */
int sampler_start(void);

/* Whether the calling thread is the sampler thread (async-signal-safe). */
int sampler_on_this_thread(void);

/* Whether this process's sampler thread exists (it is our only thread). */
int sampler_alive(void);

/* Called by the sampler thread right after it created the image's file
 * (at most once per image, fork children included).  Set before
 * sampler_start; NULL = nobody asks. */
void sampler_on_file(void (*fn)(void));

/* The end of the profile, for lifecycle.c: sampler_end posts END with
 * how/value (enum pp_end_how), kicks the thread and waits, bounded, for
 * it to write it and stop; sampler_wait_ended only waits (another thread
 * posted the end).  Async-signal-safe.  sampler_discard_on_end(1) makes
 * the end remove the file instead.  sampler_ended: the thread has
 * acknowledged the end and is gone. */
void sampler_end(int how, int value);
void sampler_wait_ended(void);
void sampler_discard_on_end(int discard);
int sampler_ended(void);

/* Exec support: if the sampler has created no file yet (none begun, or
 * one begun in a fork child's spawn window), keeps it from creating one
 * (it is held between two ticks) and returns 1; 0 if it has a file or
 * a tick kept it for more than about a millisecond.  The exec ends the
 * held sampler with the image; sampler_release lets it go on after a
 * failed one.  Waits only by nanosleep: async-signal-safe. */
int sampler_hold_unopened(void);
void sampler_release(void);

/* Fork support: sampler_pause() waits until no tick is in progress and
 * keeps the next one from starting; sampler_resume() undoes it in the
 * parent; sampler_after_fork() drops the (absent) thread in the child. */
void sampler_pause(void);
void sampler_resume(void);
void sampler_after_fork(void);

#endif
