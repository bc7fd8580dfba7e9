/*
 * control.h — sampling on demand in this process (pyprof(7), "Sampling on
 * demand"): the tree's control page (pyprof/control.h), mapped once; the
 * sampler asks it whether to sample and sleeps on it while it may not.
 */
#ifndef PYPROF_SAMPLE_CONTROL_H
#define PYPROF_SAMPLE_CONTROL_H

#include <stddef.h>
#include <stdint.h>

/* Maps PYPROF_CONTROL's page if the setting names one and it is not
 * mapped yet (a fork child keeps its parent's mapping).  From the sampler
 * thread.  Returns 1 if this process is controlled, 0 if not (no setting,
 * or a page that cannot be read: then it samples as without one, and says
 * why in its log). */
int control_open(void);

/* Whether the page says to sample now (started, and not past --for). */
int control_sampling(void);

/* Sleeps until a controller changes the page from what the last
 * control_sampling read, or someone calls control_wake_all: no timer, no
 * other wake-up.  From the sampler thread, after control_sampling. */
void control_wait(void);

/* Wakes every sampler that sleeps on the page, in every process of the
 * tree (each looks again and sleeps on); async-signal-safe. */
void control_wake_all(void);

/* The page's window number (each start makes the next), and the
 * controller's time of its start. */
uint32_t control_window(void);
uint64_t control_start_ns(void);

/* The segment size the page asks for (pyprof/control.h), 0: none. */
uint64_t control_segment_bytes(void);

/* The tree's next mark after seq `after` that the page still holds: its
 * seq (0: none), its time and text (at most PP_CONTROL_MARK_TEXT bytes
 * into text, *len of them). */
uint32_t control_next_mark(uint32_t after, uint64_t *at_ns, char *text, size_t *len);

#endif
