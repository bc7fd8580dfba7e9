/*
 * apart.c — see apart.h.
 */
#include <sched.h>

#include "base/child_writes.h"
#include "base/identity.h"
#include "sample/apart.h"

/* Ticks a window; the samples of a thread that ran it must have before
 * they say anything; the share of them found running below which the
 * sampler moves (one in four: a sampler apart finds a thread that runs
 * a third of the time running in about two of three); the windows after
 * which a moved sampler takes all the program's CPUs again (the program
 * may have been given others meanwhile). */
#define WINDOW_TICKS 32u
#define WINDOW_MIN_RAN 8u
#define MOVED_WINDOWS 32u

/* Written at every tick: with the child's variables (base/child_writes.h). */
PP_CHILD_WRITES static unsigned ticks, ran, seen, moved_for;
PP_CHILD_WRITES static int moved;

void apart_reset(void)
{
    ticks = ran = seen = moved_for = 0;
    moved = 0;
}

void apart_note(int running)
{
    ran++;
    seen += running != 0;
}

int apart_program_cpus(cpu_set_t *set, int less)
{
    if (sched_getaffinity(pp_state.pid, sizeof *set, set) != 0)
        return 0;
    if (less >= 0 && less < CPU_SETSIZE)
        CPU_CLR(less, set);
    return CPU_COUNT(set) > 0;
}

void apart_tick(int may_move)
{
    /* A window starts when the sampler's CPUs are its own: pinned beside
     * a fork's thread, it shares that thread's CPU on purpose. */
    if (!may_move) {
        ticks = ran = seen = 0;
        return;
    }
    if (++ticks < WINDOW_TICKS)
        return;
    cpu_set_t set;
    int cpu;
    if (ran >= WINDOW_MIN_RAN && seen * 4 < ran) {
        /* again when the thread came to the CPUs the sampler moved to */
        if ((cpu = sched_getcpu()) >= 0 && apart_program_cpus(&set, cpu) &&
            sched_setaffinity(0, sizeof set, &set) == 0) {
            moved = 1;
            moved_for = 0;
        }
    } else if (moved && ++moved_for >= MOVED_WINDOWS) {
        moved = 0;
        if (apart_program_cpus(&set, -1))
            sched_setaffinity(0, sizeof set, &set);
    }
    ticks = ran = seen = 0;
}
