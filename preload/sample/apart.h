/*
 * apart.h — keeps the sampler thread off the CPU of the thread that runs
 * Python when the two keep sharing one.
 *
 * A sample of a thread that holds the GIL counts in CPU mode only where
 * the sampler finds the thread running (the sampler's on_cpu): off its
 * CPU, its stack is where the scheduler last stopped it, which on a busy
 * machine falls at the ends of its slices, not at random points of its
 * work.  A sampler that shares the thread's CPU never finds it running:
 * it only gets that CPU when the thread has lost it.  The kernel's load
 * balance keeps such a pair together for seconds (beside five CPU hogs
 * on two CPUs, in three runs of five).  So when over a window of ticks
 * the sampler mostly finds the GIL's holder stopped although it ran, it
 * leaves the CPU it is on (the CPUs the program's main thread may use,
 * less that one), and after a while takes all of them again, to look
 * anew (pyprof(7), "CPU mode").  Only the sampler's own affinity
 * changes.  Used by the sampler thread only.
 */
#ifndef PYPROF_APART_H
#define PYPROF_APART_H

#include <sched.h>

/* Forgets what an earlier sampler (a fork's parent's) saw. */
void apart_reset(void);

/* A sample of the GIL's holder, which ran since its previous sample:
 * found running (running != 0) or stopped. */
void apart_note(int running);

/* At each tick; may_move: the sampler's affinity is its own to set now
 * (not pinned for a fork child's first milliseconds); while it is not,
 * nothing is counted. */
void apart_tick(int may_move);

/* All the CPUs the program's main thread may run on (as a thread it made
 * would get), less `less` when it is >= 0; 0 when that leaves none (or
 * the kernel would not say). */
int apart_program_cpus(cpu_set_t *set, int less);

#endif
