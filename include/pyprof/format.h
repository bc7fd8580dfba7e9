/*
 * pyprof/format.h — the on-disk record format: the one contract between the
 * writer in libpyprof.so (preload/record/writer.c) and the reader in pyprof-merge
 * (merge/reader.c).  man/pyprof.5 documents the same thing for users.
 *
 * A file is a zstd stream (one or more concatenated frames) whose decoded
 * bytes are a sequence of records:
 *
 *     record  = kind:u8  length:varint  payload[length]
 *
 * Every record is length-prefixed so that a reader skips kinds it does not
 * know and ignores payload bytes past the fields it knows: later format
 * versions only ever append fields to a record or add kinds.  The first
 * record is always PP_REC_HEADER.  Integers inside payloads are LEB128
 * varints (unsigned) unless noted; signed values are zigzag-encoded.
 * Strings are  length:varint bytes[length]  (UTF-8, not NUL-terminated).
 *
 * Identifiers (string, code, node, thread) are small integers assigned by
 * the writer in increasing order starting at 1; 0 means "none".  A record
 * that defines an id always precedes any record that uses it, so a file cut
 * at any point stays decodable up to the cut.
 */
#ifndef PYPROF_FORMAT_H
#define PYPROF_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PP_MAGIC          "PYPROF"       /* 6 bytes, first in HEADER payload */
#define PP_MAGIC_LEN      6
#define PP_FORMAT_VERSION 1

enum pp_record_kind {
    /* magic[6] version:varint pid ppid uid:u64le parent_uid:u64le
     * started_by:u8 start_ns interval_ns argc:varint argv:string[argc]
     * executable:string python_version:string hostname:string
     * flags:varint (PP_HDR_*) */
    PP_REC_HEADER   = 1,
    /* id:varint value:string */
    PP_REC_STRING   = 2,
    /* id:varint qualname:string-id filename:string-id firstlineno:varint
     * name:string-id (the bare co_name, for pstats) */
    PP_REC_CODE     = 3,
    /* One node of the stack trie.  id:varint parent:node-id (0 = a root
     * frame, i.e. the outermost one) code:code-id line:zigzag (-1 = unknown)
     * A sample's stack is its leaf node followed by parents to a root. */
    PP_REC_NODE     = 4,
    /* idx:varint native_tid:varint name:string.  May be repeated for the
     * same idx when the thread's name changes; the last one wins. */
    PP_REC_THREAD   = 5,
    /* One timer tick.  dt_ns:varint (since the previous TICK; the first
     * one counts from the header's start_ns) then, until the end of the
     * payload, one entry per thread sampled in this tick:
     *     thread:thread-idx  leaf:node-id  flags:u8 (PP_SAMPLE_*)
     * A thread whose stack was empty has leaf 0. */
    PP_REC_TICK     = 6,
    /* Running totals, written with every flush so that a file cut short
     * (SIGKILL) still says how the sampler was doing:
     * samples rejected ticks_missed sampler_cpu_ns ticks tick_ns idle
     * tick_ns (absent in files from earlier builds = unknown) is the
     * wall time spent inside ticks: sampler_cpu_ns minus it is what the
     * thread's wake-ups cost, which is the kernel's, not ours.  idle
     * (absent = 0) counts deadlines at which the interpreter was
     * finalizing, with nothing to sample: from the file's start to its
     * end, ticks + missed + idle make up every deadline of the rate. */
    PP_REC_COUNTERS = 7,
    /* end_ns:varint how:u8 (PP_END_*) value:zigzag, then the same seven
     * counters as PP_REC_COUNTERS, then span_ns: the time from the
     * header's start to this record on the monotonic clock (absent in
     * files from earlier builds).  Last record of a complete file. */
    PP_REC_END      = 8,
    /* Rejected samples since the previous REJECTS record, by where their
     * thread was last seen: until the end of the payload, pairs
     *     leaf:node-id count:varint
     * leaf is the leaf of the thread's last sample written before the
     * reject (0 = none).  Written before COUNTERS when there were rejects;
     * absent in files from earlier builds. */
    PP_REC_REJECTS  = 9,
    /* CPU time a thread used beyond what its sample in the TICK record
     * just before carries (deadlines the sampler missed while the thread
     * ran): until the end of the payload, one entry per such thread,
     *     thread:thread-idx  leaf:node-id  flags:u8  count:varint
     * with the leaf and flags of that sample (PP_SAMPLE_ON_CPU set): count
     * more CPU-mode samples of that stack, which no other mode counts.
     * count is at most PP_MAX_CPU_EXTRA.  Absent in files from earlier
     * builds. */
    PP_REC_CPU_EXTRA = 10,
    /* title:string.  The process's command line as the kernel now shows it
     * (/proc/PID/cmdline, its NULs as spaces, trailing ones dropped), when
     * it has changed since the header's argv or the previous TITLE: a
     * program that sets its title (setproctitle: gunicorn, Celery, uWSGI
     * workers).  The last one holds.  Absent in files from earlier
     * builds. */
    PP_REC_TITLE = 11,
    /* asyncio tasks of a thread that were pending, not running, at the
     * TICK record just before: until the end of the payload, one entry
     * per task looked at,
     *     thread:thread-idx  leaf:node-id  count:varint
     * thread the one whose event loop owns the task, leaf the task's
     * await stack under its awaiting tasks' (<task NAME> pseudo-frames)
     * under the pseudo-frame <waiting tasks>, count the ticks the entry
     * stands for (a thread with more pending tasks than one tick looks at
     * has each looked at every count ticks).  Counted in the tasks mode
     * only; count is at most PP_MAX_TASK_WAIT.  Absent in files from
     * earlier builds. */
    PP_REC_TASK_WAIT = 12,
    /* Sampling on demand (pyprof(7)): what:u8 (PP_CONTROL_REC_*) window:varint
     * seq:varint at_ns:varint text:string.  START and STOP bound window
     * number `window` (at_ns: the controller's CLOCK_REALTIME of the start
     * or stop, or the end --for gave), written when the process starts and
     * stops sampling in it (seq 0, text empty); MARK is the tree's mark
     * number seq, made at at_ns, text at most PP_MAX_MARK_TEXT bytes:
     * every process that samples writes every mark it has not written, so
     * readers keep one per seq.  Absent in files from earlier builds. */
    PP_REC_CONTROL = 13,
    /* A time segment of an image's profile (pyprof-run --keep, --max-size;
     * pyprof(7), "Bounded disk"): seq:varint (0 for the image's first)
     * image_start_ns:varint (the first segment's header start_ns)
     * threads_before:varint (thread indexes up to it may appear here
     * before they are defined in order: the image's threads keep the
     * index an earlier segment gave them).  Right after the HEADER, in
     * every segment; absent from a profile that is not cut.  Counters in
     * a segment count from its own start, and ids other than threads'
     * start again at 1: each segment is a complete file on its own, and
     * a reader joins an image's segments by adding them up. */
    PP_REC_SEGMENT = 14,
};

enum { PP_CONTROL_REC_START = 1, PP_CONTROL_REC_STOP = 2, PP_CONTROL_REC_MARK = 3 };
#define PP_MAX_MARK_TEXT 112u

/* How the process image that wrote the file came to be. */
enum pp_started_by {
    PP_START_ROOT  = 0,  /* first profiled process of the tree             */
    PP_START_FORK  = 1,  /* fork()/clone() child of a profiled image       */
    PP_START_EXEC  = 2,  /* exec of a profiled image (same pid)            */
    PP_START_SPAWN = 3,  /* exec'd child of a profiled process (vfork+exec,
                            posix_spawn, system, popen)                    */
};

/* How the image ended (PP_REC_END.how); value is the exit code or signal. */
enum pp_end_how {
    PP_END_EXIT   = 0,   /* exit(value) / _exit(value)                     */
    PP_END_SIGNAL = 1,   /* killed by signal value (as seen by the process)*/
    PP_END_EXEC   = 2,   /* replaced by exec; the next image has a file    */
    PP_END_UNKNOWN = 3,
    PP_END_SEGMENT = 4,  /* the image goes on in the segment seq + 1       */
};

/* PP_REC_TICK entry flags. */
#define PP_SAMPLE_ON_CPU    0x01u  /* thread consumed CPU since its previous sample */
#define PP_SAMPLE_HOLDS_GIL 0x02u  /* thread held the GIL (or, free-threaded: was attached) */
#define PP_SAMPLE_TRUNCATED 0x04u  /* stack deeper than PP_MAX_DEPTH; outer frames cut */
#define PP_SAMPLE_IN_GC     0x08u  /* the cyclic GC was running on this thread: the
                                      stack's innermost frame is the <GC> pseudo-frame */
#define PP_SAMPLE_EXCEPTION 0x10u  /* an exception was being raised, or handled (an
                                      except block, sys.exc_info() not empty) */
#define PP_SAMPLE_TASK_WAIT 0x40u  /* never written: readers mark TASK_WAIT's
                                      samples with it (and with RESERVED) */
#define PP_SAMPLE_RESERVED  0x80u  /* never written: readers mark CPU_EXTRA's
                                      and TASK_WAIT's samples with it */

/* PP_REC_HEADER flags. */
#define PP_HDR_FREE_THREADED 0x01u

/* Limits shared by writer and reader.  The reader rejects anything larger
 * as damage instead of allocating for it. */
#define PP_MAX_DEPTH        4096u        /* frames kept per stack (innermost kept) */
#define PP_MAX_RECORD       (1u << 20)   /* payload bytes of one record   */
#define PP_MAX_STRING       (64u << 10)  /* bytes of one string           */
#define PP_MAX_ARGV         4096u        /* argv entries kept in a header */
#define PP_MAX_ID           (1u << 28)   /* any string/code/node/thread id */
#define PP_MAX_CPU_EXTRA    (1u << 24)   /* one CPU_EXTRA entry's count   */
#define PP_MAX_TITLE        4096u        /* bytes of a TITLE's string     */
#define PP_MAX_TASK_WAIT    (1u << 16)   /* one TASK_WAIT entry's count   */

/* ---- varints: used by both sides, so defined here once. -------------- */

/* Writes v at p (which must have 10 bytes free); returns bytes written. */
static inline size_t pp_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline uint64_t pp_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t pp_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint from [*p, end).  Returns 0 and advances *p on success,
 * -1 on truncation or on an encoding longer than 10 bytes. */
static inline int pp_get_varint(const uint8_t **p, const uint8_t *end,
                                uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    const uint8_t *q = *p;
    while (q < end && shift < 64) {
        uint8_t b = *q++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *out = v;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

#endif /* PYPROF_FORMAT_H */
