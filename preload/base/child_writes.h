/*
 * child_writes.h — the library's variables that a fork child writes as it
 * starts, or as it ends at once, gathered in one section of their own.
 *
 * Every page of the library's data a child writes is a copy-on-write
 * fault, about 10 microseconds on the development VMs (pyprof(7),
 * "Timing and cost"); spread over the files' own .data and .bss, the
 * child's resets touched eight pages, gathered they touch one or two.
 * The parent's sampler, which writes most of them at every tick, takes
 * as many fewer faults after each fork; so the small variables it writes
 * at every tick belong here too (the walk's tick count, the writer's
 * per-tick lengths, moving apart's counts), also where no child writes
 * them.  Only small variables belong here: a large buffer would push the
 * rest onto other pages.
 */
#ifndef PYPROF_CHILD_WRITES_H
#define PYPROF_CHILD_WRITES_H

#define PP_CHILD_WRITES __attribute__((section("pp_child_writes")))

/* The small variables the constructor writes in every image, a program
 * that is not Python too (each sh, cc or true of a build's tree, at each
 * exec): the functions the hooks look up, the settings' flags.  They
 * share the page above, which the constructor writes anyway (the image's
 * pid and parent), instead of costing a zero-filled page each (pyprof(7),
 * "Timing and cost"). */
#define PP_START_WRITES PP_CHILD_WRITES

#endif
