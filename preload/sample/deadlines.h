/*
 * deadlines.h — the sampler's account of its deadlines: every deadline of
 * the rate from the file's start to its end is a tick served or a tick
 * missed (pyprof(7), Timing and cost).  Plain arithmetic on the monotonic
 * clock, kept by the sampler thread under its tick lock, and ended by an
 * exiting thread that writes the file's end itself (sampler.c).
 *
 * The latest deadline due when the thread gets to a tick is the one that
 * tick serves; the earlier ones are missed.  A deadline before the file's
 * start is nobody's: the thread may learn that the file exists only long
 * after it looked at the clock (a tick creates the file, and the thread can
 * lose its CPU on the way), and the deadlines that passed meanwhile must
 * not be charged to a file that began after them.
 */
#ifndef PYPROF_DEADLINES_H
#define PYPROF_DEADLINES_H

#include <stdint.h>

struct deadlines {
    uint64_t iv;        /* the interval between deadlines (ns)            */
    uint64_t next;      /* the first deadline neither served nor counted  */
    uint64_t from;      /* the file's start: earlier deadlines are not
                           counted (UINT64_MAX while there is no file)    */
};

/* Deadlines every iv from now + iv on; counted from `from` (0: a file
 * already open, whose account goes on). */
static inline void deadlines_init(struct deadlines *d, uint64_t now,
                                  uint64_t iv, uint64_t from)
{
    d->iv = iv;
    d->next = now + iv;
    d->from = from;
}

/* The file began at start (writer_open's clock). */
static inline void deadlines_file_start(struct deadlines *d, uint64_t start)
{
    d->from = start;
}

/* How many deadlines are due by now: at or before it, not yet passed on. */
static inline uint64_t deadlines_due(const struct deadlines *d, uint64_t now)
{
    return now >= d->next ? (now - d->next) / d->iv + 1 : 0;
}

/* Passes on the next n deadlines; returns how many of them are in the
 * file's account (at or after its start). */
static inline uint64_t deadlines_pass(struct deadlines *d, uint64_t n)
{
    uint64_t first = d->next;
    d->next += n * d->iv;
    if (first >= d->from)
        return n;
    if (d->from == UINT64_MAX)
        return 0;
    uint64_t before = (d->from - first + d->iv - 1) / d->iv;
    return before >= n ? 0 : n - before;
}

/* Moves the deadlines not yet passed on by shift ns, earlier or later
 * (the sampler's phase, pyprof(7) "Timing and cost"); not earlier than
 * just after now, so that none becomes due behind the clock.  Returns the
 * next deadline. */
static inline uint64_t deadlines_shift(struct deadlines *d, uint64_t now,
                                       int64_t shift)
{
    if (shift < 0 && d->next < now + (uint64_t)-shift + 1)
        shift = d->next > now + 1 ? -(int64_t)(d->next - now - 1) : 0;
    d->next += (uint64_t)shift;
    return d->next;
}

#endif
