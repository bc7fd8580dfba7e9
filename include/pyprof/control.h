/*
 * control.h — the page that starts and stops sampling in every process of
 * a tree started paused (pyprof-run --paused, --control; pyprof(7),
 * "Sampling on demand"), and that sizes the segments of a tree whose disk
 * is bounded (--max-size).  One file, PYPROF_CONTROL, of one page: the
 * controller writes it; every sampler maps it shared and read-only and
 * sleeps on its state word (a futex shared between processes: no timer
 * and no wake-up while paused) until a controller wakes them.  Who may
 * control the tree is who may write the file: its owner, the run's user
 * (mode 0644), and root.
 */
#ifndef PYPROF_CONTROL_H
#define PYPROF_CONTROL_H

#include <stdint.h>

#define PP_CONTROL_MAGIC   0x43505950u     /* "PYPC" */
#define PP_CONTROL_VERSION 1u
#define PP_CONTROL_SIZE    4096u
#define PP_CONTROL_FILE    "control"       /* in the output directory */
#define PP_ENV_CONTROL     "PYPROF_CONTROL"

enum { PP_CONTROL_PAUSED = 0, PP_CONTROL_SAMPLING = 1 };

/* The last PP_CONTROL_MARKS marks, mark seq (from 1) at
 * marks[(seq - 1) % PP_CONTROL_MARKS]; a slot is whole once its seq is
 * stored (release), after its time and text. */
#define PP_CONTROL_MARKS 24
#define PP_CONTROL_MARK_TEXT 112
struct pp_control_mark {
    uint64_t at_ns;                     /* CLOCK_REALTIME */
    uint32_t seq, len;
    char text[PP_CONTROL_MARK_TEXT];
};

struct pp_control {
    uint32_t magic, version;
    /* PP_CONTROL_*: the word samplers sleep on.  A controller changes it
     * and wakes every waiter (FUTEX_WAKE, not private). */
    uint32_t state;
    /* Bumped by each start and stop: a window's number (the first start
     * makes it 1). */
    uint32_t window;
    /* CLOCK_REALTIME ns after which a started tree counts as paused
     * (--for); 0: until stopped. */
    uint64_t until_ns;
    /* CLOCK_REALTIME ns of the last start and stop, as the controller saw
     * them: what every process records as its window's bounds. */
    uint64_t start_ns, stop_ns;
    uint32_t nmarks;                    /* the last mark's seq; 0: none */
    uint32_t pad;
    struct pp_control_mark marks[PP_CONTROL_MARKS];
    /* Bounded disk (pyprof-run --max-size; pyprof(7), "Bounded disk"):
     * the bytes after which a process starts its profile's next segment,
     * set by pyprof-run from how many processes write at once; 0: the
     * process's PYPROF_SEGMENT_KB. */
    uint64_t segment_bytes;
};
_Static_assert(sizeof(struct pp_control) <= PP_CONTROL_SIZE, "one page");

#endif
