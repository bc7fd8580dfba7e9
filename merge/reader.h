/*
 * reader.h — one profile file, decoded.  The file is streamed through
 * zstd; records are checked against format.h's limits; a file that ends
 * early or goes bad keeps everything read before the damage and says what
 * happened.  Samples are not kept one by one: they are counted per
 * (thread, leaf node, flags), so memory follows distinct stacks.
 */
#ifndef PYPROF_MERGE_READER_H
#define PYPROF_MERGE_READER_H

#include <stddef.h>
#include <stdint.h>

/* boundary: 0 for code; for the pseudo-frame of a thread's entry into a
 * subinterpreter, 1 + that interpreter's id (pyprof(5), CODE). */
struct rd_code { uint32_t qualname, filename, name, firstlineno, boundary; };
#define RD_MAX_INTERP_ID 0x7fffffffu
struct rd_node { uint32_t parent, code; int32_t line; uint32_t depth; };
/* A thread's name is the program's where it gave one (a threading.Thread's
 * name), with the OS's beside it where that differs (else NULL). */
struct rd_thread { uint32_t tid; char *name, *os_name; };
struct rd_block;
/* flags: the samples' (PP_SAMPLE_*); with PP_SAMPLE_RESERVED, the count
 * is of a CPU_EXTRA record's samples, which count in CPU mode alone, or
 * with PP_SAMPLE_TASK_WAIT too, of a TASK_WAIT record's (the tasks mode
 * alone). */
struct rd_count { uint32_t thread, leaf; uint8_t flags; uint64_t count; };
/* Rejected samples by the leaf of their thread's last sample (0 = none). */
struct rd_reject { uint32_t leaf; uint64_t count; };
#define RD_MAX_REJECT_LEAVES 1024u   /* more distinct leaves count under 0 */

/* A start, stop or mark of sampling on demand (PP_REC_CONTROL). */
struct rd_control { uint8_t what; uint32_t window, seq; uint64_t at_ns; char *text; };
#define RD_MAX_CONTROLS 4096u        /* more are counted, not kept          */

struct rd_counters {
    uint64_t samples, rejected, missed, sampler_cpu_ns, ticks;
    uint64_t tick_ns, idle;      /* 0 in files from earlier builds        */
    uint64_t failed_reads[3];    /* torn, slow, other; 0 in earlier files */
};

struct rd_file {
    const char *path;
    /* header */
    int has_header;
    uint64_t format_version;
    int64_t pid, ppid;
    uint64_t uid, parent_uid;
    int started_by;
    uint64_t start_ns, interval_ns;
    char **argv;
    size_t argc;
    char *executable, *python, *hostname;
    char *title;                 /* the last TITLE record's; NULL: none    */
    struct rd_control *controls; /* in file order, at most RD_MAX_CONTROLS */
    size_t ncontrols;
    uint64_t header_flags;
    /* tables, indexed by id (0 unused) */
    char **strings; size_t nstrings;
    struct rd_code *codes; size_t ncodes;
    struct rd_node *nodes; size_t nnodes;
    struct rd_thread *threads; size_t nthreads;
    /* every (thread, leaf, flags) with its count, in the order of the
     * reader's hash table (counts_cap == counts_used once read) */
    struct rd_count *counts; size_t counts_cap, counts_used;
    struct rd_reject *rejects;   /* REJECTS records, summed by leaf       */
    size_t nrejects;
    uint64_t samples;            /* samples read (the ticks' entries)     */
    uint64_t cpu_extra;          /* CPU-mode samples of CPU_EXTRA records */
    uint64_t task_waits;         /* tasks-mode samples of TASK_WAIT records */
    uint64_t last_tick_ns;       /* start_ns + sum of dt                   */
    struct rd_counters counters; /* last COUNTERS or END                   */
    int has_counters;
    /* end */
    int complete;                /* the last record read was END          */
    uint64_t end_ns;
    uint64_t span_ns;            /* start to end, monotonic; 0 = unknown   */
    int end_how;
    int64_t end_value;
    /* time segments (pyprof(5), SEGMENT): the segments read, joined into
     * this one file (1 for a profile not cut); their paths when more
     * than one (for another reading), the first and last segment's
     * numbers, the image's first segment's start; seg_paths is NULL-ended
     * and may name more files than were read (nsegs) */
    int segmented;
    size_t nsegs;
    char **seg_paths;
    uint32_t seg_first, seg_last;
    uint64_t image_start_ns;
    /* damage: NULL when the whole file was read; in a chain of segments,
     * the segment it is in (NULL: path) */
    char *problem;
    char *problem_path;
    /* allocation accounting for the per-file cap */
    size_t allocated;
    struct rd_block *blocks;     /* where every string above lives        */
};

/* Reads path completely.  Always returns a file (with problem set when
 * it could not be read to the end); NULL only when out of memory. */
struct rd_file *rd_read(const char *path);

/* From now on, read every C function's pseudo-frame as its caller's
 * frame (pyprof-merge --hide-c-calls); set before any read. */
void rd_hide_c_calls(int on);

/* The same with buffers kept from one file to the next: one context per
 * reading thread, used by one thread at a time. */
struct rd_ctx;
struct rd_window;
struct rd_ctx *rd_ctx_new(void);
void rd_ctx_free(struct rd_ctx *x);
struct rd_file *rd_read_with(struct rd_ctx *x, const char *path);

/* The same, but every sample goes to the sink in file order, as its tick
 * is decoded, instead of being counted: the file's counts stay empty and
 * memory stays that of its tables.  tick gets the tick's time in ns since
 * the header's start; sample gets each entry of that tick that passed the
 * checks (leaf 0: no Python frame). */
struct rd_sink {
    void (*tick)(void *arg, const struct rd_file *f, uint64_t since_start_ns);
    void (*sample)(void *arg, const struct rd_file *f, uint32_t thread,
                   uint32_t leaf, uint8_t flags);
    void *arg;
    /* count more CPU-mode samples of the tick's sample of thread (flags
     * with PP_SAMPLE_RESERVED), or with PP_SAMPLE_TASK_WAIT too, count
     * samples of a pending task of its loop, of stack leaf; may be NULL */
    void (*cpu_extra)(void *arg, const struct rd_file *f, uint32_t thread,
                      uint32_t leaf, uint8_t flags, uint64_t count);
};
struct rd_file *rd_stream(const char *path, const struct rd_sink *sink);

/* An image's time segments, in order (pyprof(5), SEGMENT), read as one
 * file: ids of each segment after those of the segments before it,
 * counters and span added up, the first segment's header (a segment of
 * another image is a problem and left out); a damaged segment keeps what
 * it had and the next one is read.  n >= 1. */
struct rd_file *rd_read_chain(struct rd_ctx *x, char *const *paths, size_t n,
                              const struct rd_window *w);

/* A part of a file's time: its ticks at or after lo and before hi, in ns
 * on the file's own clock (the header's start plus the ticks' deltas,
 * rd_file.last_tick_ns).  The readings below count, or give to the sink,
 * only those ticks' samples and the CPU_EXTRA and TASK_WAIT records that
 * follow them; every record is still read and checked.  NULL: all. */
struct rd_window { uint64_t lo, hi; };
struct rd_file *rd_read_window(struct rd_ctx *x, const char *path,
                               const struct rd_window *w);
struct rd_file *rd_stream_window(const char *path, const struct rd_sink *sink,
                                 const struct rd_window *w);
struct rd_file *rd_stream_chain(char *const *paths, size_t n, const struct rd_sink *sink,
                                const struct rd_window *w);

/* A file read as it is written (a live view of a running tree): each
 * rd_follow_poll reads what was appended since the last one and gives
 * its samples to the sink in order, the file's tables growing with it; a
 * record or compressed block cut by the end of what was written so far
 * waits for the rest.  Poll returns 1 if it read anything, 0 if nothing
 * was new (rd_file.complete: the file has ended), -1 once the file is
 * damaged (rd_file.problem says how; nothing more is read).  Close
 * judges the file as rd_stream would have (a file still being written is
 * "truncated") and returns it, for rd_free.  Each follow holds its own
 * decompressor (about 400 KiB). */
struct rd_follow;
struct rd_follow *rd_follow_open(const char *path, const struct rd_sink *sink);
int rd_follow_poll(struct rd_follow *fw);
const struct rd_file *rd_follow_file(const struct rd_follow *fw);
struct rd_file *rd_follow_close(struct rd_follow *fw);

/* Same, from a memory buffer holding the file's bytes (tests, fuzzing). */
struct rd_file *rd_read_mem(const char *name, const uint8_t *data, size_t len);

void rd_free(struct rd_file *f);

/* The string with id, or "" for an unknown id. */
const char *rd_string(const struct rd_file *f, uint32_t id);

#endif
