/*
 * writer.h — one image's profile file: header, tables, ticks, counters,
 * end, as a zstd stream (include/pyprof/format.h).  Used only by the
 * sampler thread (and by the constructor/fork child before it starts), so
 * it needs no locks.
 */
#ifndef PYPROF_WRITER_H
#define PYPROF_WRITER_H

#include <stdint.h>

struct pyvm_thread;

struct writer_counters {
    uint64_t samples;        /* thread-samples written                     */
    uint64_t rejected;       /* stacks dropped as torn/unreadable          */
    uint64_t missed;         /* timer expirations we could not serve       */
    uint64_t sampler_cpu_ns; /* CPU time of the sampler thread             */
    uint64_t ticks;          /* ticks served                               */
    uint64_t tick_ns;        /* wall time inside ticks (excl. wake-ups)    */
    uint64_t idle;           /* deadlines with nothing to sample: the
                                interpreter was finalizing               */
    uint64_t failed_reads[3];/* reads of a stack that failed: torn, too
                                slow, not a stack (pyprof(5), COUNTERS)  */
};

/* Allocates the buffers and the compressor before the first tick, so that
 * neither the file's creation nor its first flush costs ticks.  Optional
 * (writer_open does what is missing); -1 when out of memory. */
int writer_init(void);

/* Whether the buffers and the compressor are there (writer_init, or a
 * fork child's from its parent): writer_open then takes no memory. */
int writer_ready(void);

/* What the header says besides the image's identity (pp_state). */
struct writer_image {
    char *const *argv;       /* the image's argv, NULL-terminated          */
    uint64_t interval_ns;    /* the sampling interval                      */
    const char *py_version;  /* "3.11.7"                                   */
    int free_threaded;       /* a free-threaded build                      */
    /* A time segment of the image's profile (pyprof(5), SEGMENT): its
     * number, the first segment's start, the thread indexes the image
     * gave out before it.  segmented 0: one file for the whole image. */
    int segmented;
    uint32_t seq, threads_before;
    uint64_t image_start_ns;
    /* The file is begun but not created: it is created by its first
     * write (a flush, its end) or by writer_create, and a discard before
     * that touches the directory not at all. */
    int defer_create;
};

/* Creates PYPROF_OUT if needed and a new file for this image (pp_state)
 * and writes its header.  Returns 0, or -1 with one message on stderr. */
int writer_open(const struct writer_image *img);

/* Whether the file is begun (writer_open) but not yet created
 * (defer_create). */
int writer_deferred(void);

/* Creates a deferred file now (nothing to do for one that exists).
 * Returns 0, or -1 with one message on stderr: nothing of this file is
 * written then. */
int writer_create(void);

/* The file's start on CLOCK_MONOTONIC, taken before writer_open's work of
 * creating it: where its account of deadlines begins. */
uint64_t writer_start_ns(void);

/* The file's start on CLOCK_REALTIME, as its header says. */
uint64_t writer_start_realtime_ns(void);

/* Which file is open: a number that changes with every writer_open, for
 * what must be written again in each file (a thread's name). */
uint32_t writer_file_gen(void);

/* Declares thread idx (small, dense, chosen by the caller) with its name
 * and, when it differs and is not NULL, the OS's name of the thread; again
 * with the same idx when the name changes.  Names are cut to
 * WRITER_THREAD_NAME - 1 bytes. */
#define WRITER_THREAD_NAME 256
void writer_thread(uint32_t idx, uint32_t native_tid, const char *name,
                   const char *os_name);

/* A start, stop or mark of sampling on demand (PP_REC_CONTROL). */
void writer_control(int what, uint32_t window, uint32_t seq, uint64_t at_ns,
                    const char *text, size_t len);

/* The process's title now (PP_REC_TITLE), cut to PP_MAX_TITLE bytes. */
void writer_title(const char *title);

/* A tick: prepare, begin, one writer_sample per sampled thread, end.
 * The tick's time is begin's mono_ns, which may be known only once the
 * first thread's stack has been read: prepare does before any reading
 * what begin would otherwise do after it (emptying stale tables). */
void writer_tick_prepare(void);
void writer_tick_begin(uint64_t mono_ns);
void writer_sample(uint32_t thread_idx, const struct pyvm_thread *t,
                   unsigned flags);
void writer_tick_end(void);

/* After writer_sample(thread_idx, ..., flags) in the same tick: count more
 * CPU-mode samples of that sample's stack (the CPU time the thread used in
 * deadlines the sampler missed), written after the tick as a CPU_EXTRA
 * record.  Entries past the record's room are dropped. */
void writer_cpu_extra(uint32_t thread_idx, unsigned flags, uint32_t count);

/* In the same tick: a pending asyncio task of thread_idx's loop, its
 * stack t (task_frames.h), standing for count ticks; written after the
 * tick as a TASK_WAIT record.  Entries past the record's room are
 * dropped. */
void writer_task_wait(uint32_t thread_idx, const struct pyvm_thread *t, uint32_t count);

/* A sample of thread idx was rejected: counted under the leaf of the
 * thread's last sample, for the next flush's REJECTS record. */
void writer_reject(uint32_t thread_idx);

/* Makes everything so far decodable from the file (ZSTD_e_flush + write),
 * preceded by a COUNTERS record. */
void writer_flush(const struct writer_counters *c);

/* END record, end of zstd frame, write.  The file stays open: if an exec
 * fails the image goes on writing (a new zstd frame) into it. */
void writer_end(int how, int value, const struct writer_counters *c);

/* Fork child, and only there: forget the parent's file and unwritten
 * bytes without writing anything, taking the tables as the fork left them
 * (zero-filled: base/image_mem.h).  Async-signal-safe (no allocation, no
 * locks, no system call). */
void writer_after_fork(void);

/* Closes and removes this image's file (it held nothing worth keeping);
 * one that was never created is only forgotten. */
void writer_discard(void);

/* hold 1: until writer_hold_fd(0), the file's fd, once created or opened,
 * stays open on a thread without a private fd table too (own_fd.h), so
 * that a file made and ended at once (a fork child's exit, written by the
 * exiting thread) is opened once, not once to create and again to write.
 * hold 0 closes it there.  Under the caller's lock, on one thread. */
void writer_hold_fd(int hold);

/* Bytes written to the file so far (compressed), for the log and for the
 * size of a segment. */
uint64_t writer_bytes(void);

/* Bytes of records not yet compressed: at most what they add to the file
 * (zstd's framing aside). */
uint64_t writer_pending(void);

#endif
