/*
 * timeline.h — one process's samples per thread in time order, for the
 * formats that show time (speedscope, gecko).  The model only counts
 * samples, so the process's file is read a second time (rd_stream) and
 * every thread's samples go, as (leaf, duration) events, to one unlinked
 * temporary file: memory holds a small buffer per thread, never the
 * samples themselves.
 *
 * A thread's events tile its time from its first kept sample to the end
 * of its last one: a sample lasts until the file's next tick (the last
 * one for the interval asked), and time in between in which the thread
 * had no sample kept (not sampled, no Python frame, or not counted in the
 * report's mode) is one event with leaf 0.  In CPU mode the samples of a
 * CPU_EXTRA record (pyprof(5)) are events of no duration just before the
 * sample they extend: the time of the deadlines they stand for is already
 * the previous sample's, up to the tick.
 */
#ifndef PYPROF_MERGE_TIMELINE_H
#define PYPROF_MERGE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "reader.h"

/* In a tl_event's leaf: the sample's stack was deeper than the sampler
 * keeps (PP_SAMPLE_TRUNCATED); the node is leaf & ~TL_CUT, and the stack
 * is shown under the model's <truncated> root (M_TRUNCATED). */
#define TL_CUT 0x80000000u

struct tl_event {
    uint32_t leaf;          /* node of the timeline's file, | TL_CUT; 0: no
                               sample                                      */
    uint64_t start, dur;    /* ns since the process's start               */
};

struct tl_chunk { uint64_t off; uint32_t len; };

struct tl_thread {
    uint64_t samples;       /* events with a leaf                         */
    uint64_t events;
    uint64_t start, end;    /* the first event's start, the last one's end */
    /* spooling */
    int any, pending;
    uint32_t pending_leaf;
    uint8_t *buf;
    uint32_t len;
    struct tl_chunk *chunks;
    size_t nchunks, chunks_cap;
};

struct tl_proc {
    const struct model *m;
    size_t proc;
    struct rd_file *f;          /* the second reading: nodes, codes, names */
    struct tl_thread *threads;  /* by the file's thread index              */
    size_t nthreads;
    /* spooling */
    int fd;
    uint64_t spooled, seen, limit, now;
    uint64_t extra_left;        /* CPU_EXTRA samples still to place        */
    size_t buffers;             /* thread buffers allocated                */
    uint32_t *pending;          /* threads with a sample of the last tick  */
    size_t npending, pending_cap;
    int stopped, failed;
};

/* Reads process `proc` of m again.  NULL (with the reason on stderr) when
 * it cannot be read again or the spool cannot be written. */
struct tl_proc *tl_read(const struct model *m, size_t proc);
void tl_free(struct tl_proc *t);

/* Walking one thread's events in time order. */
struct tl_iter {
    const struct tl_proc *t;
    const struct tl_thread *th;
    size_t chunk;
    uint8_t buf[8192];
    uint32_t len, pos;
    uint64_t at;
    int failed;
};
void tl_iter_start(const struct tl_proc *t, size_t thread, struct tl_iter *it);
/* A started one on the heap (the caller frees it), or NULL. */
struct tl_iter *tl_iter_new(const struct tl_proc *t, size_t thread);
/* 1 with the next event in e, 0 at the end (it->failed on a read error). */
int tl_iter_next(struct tl_iter *it, struct tl_event *e);

/* The nanoseconds since the earliest start of m's processes at which
 * process proc started. */
uint64_t tl_proc_offset(const struct model *m, size_t proc);

#endif
