/*
 * pyvm.h — reading this process's own CPython interpreter(s) from memory,
 * without the GIL and without calling into Python.  Everything here runs
 * in the sampler thread (pyvm_detect in the constructor), and every read
 * of interpreter memory goes through safe_read().
 *
 * Parts, outermost first:
 *   detect.c          finds _PyRuntime and the version, picks the layout
 *                     once, tells when the interpreter is ready
 *   walk.c            walks interpreters -> thread states -> frames
 *   layout/...        one struct py_layout per layout family: static
 *                     tables for 3.10/3.11/3.12, _Py_DebugOffsets for 3.13+
 *   codecache.c       code object -> names, first line, line table
 *                     (cached, validated against address reuse)
 *   linetable.c       instruction offset -> line, per table format
 *   pystr.c           str objects -> UTF-8, straight from memory
 */
#ifndef PYPROF_PYVM_H
#define PYPROF_PYVM_H

/* native_tid of a thread state whose OS thread has ended while CPython
 * kept the state (a main thread that called pthread_exit): no thread can
 * have this id. */
#define PYVM_TID_ENDED UINT32_MAX

#include <stddef.h>
#include <stdint.h>

struct code_info;   /* codecache.h */

/* Finds the interpreter in this process and chooses its layout.  Cheap
 * (a few dlsym calls); called from the constructor of every process.
 * Returns 1 for a supported CPython, 0 when this is not a CPython process
 * (stay dormant, say nothing), -1 for a CPython we cannot read (unknown
 * version or a failed sanity check; pyvm_refusal says why, for the caller
 * to report: the not-profiled record is a higher layer's).
 * Must not start threads or write files. */
int pyvm_detect(void);

/* Why pyvm_detect returned -1 ("Python 3.16.0: this version is not
 * supported"); "" before that. */
const char *pyvm_refusal(void);

/* "3.11.7" or similar; valid after pyvm_detect() returned 1. */
const char *pyvm_version(void);
int pyvm_free_threaded(void);

/* Nonzero once the interpreter is initialized enough to sample and not
 * finalizing.  Cheap: one or two guarded loads. */
int pyvm_ready(void);

/* Nonzero once pyvm_ready found that the interpreter's memory does not
 * fit the chosen layout: it never becomes ready, and pyvm_refusal says
 * why (the not-profiled record is a higher layer's). */
int pyvm_refused(void);

/* One frame of a sampled stack. */
struct pyvm_frame {
    struct code_info *code;         /* never NULL; file_id/file_gen are the
                                       writer's to set                    */
    int32_t line;                   /* -1 when unknown                    */
    uintptr_t addr;                 /* the frame's address (0: a pseudo-
                                       frame), for placing asyncio tasks  */
};

/* One sampled thread.  frames[0] is the innermost frame. */
struct pyvm_thread {
    uintptr_t tstate;         /* PyThreadState address (identity only)     */
    uint32_t  native_tid;     /* gettid() value of the thread; 0 = unknown,
                                 PYVM_TID_ENDED: its thread has ended    */
    int       cpu_known;      /* cpu_ns holds the thread's CPU time, read
                                 by the kernel right after its stack      */
    uint64_t  cpu_ns;
    unsigned  flags;          /* PP_SAMPLE_HOLDS_GIL | PP_SAMPLE_TRUNCATED |
                                 PP_SAMPLE_IN_GC: the thread holds the GIL
                                 while its interpreter's cyclic GC runs
                                 (frames has no frame for it) |
                                 PP_SAMPLE_EXCEPTION (exc_state.h)        */
    /* The id of the interpreter the thread state belongs to: 0 is the
     * main one.  A thread that runs code in a subinterpreter has a state
     * there and keeps its state in the interpreter that called it, whose
     * frames are its callers (sampler.c joins the two). */
    int64_t   interp;
    unsigned  depth;          /* number of frames                          */
    /* The outermost same_outer frames are the same frames (address, code,
     * instruction) as in this tstate's previous sample, so a consumer may
     * reuse what it derived from them last time.  0 = nothing known.     */
    unsigned  same_outer;
    /* same_outer refers to the sample of this tstate numbered prev_seq; a
     * consumer that did not see that sample must ignore same_outer. */
    uint32_t  seq, prev_seq;
    const struct pyvm_frame *frames;
    /* CLOCK_MONOTONIC when the thread's stack was as given: when its
     * current frame was first read, or, when the frames above returned
     * while it was read and were dropped (walk.c), when the read that
     * found where what is left starts was made; 0 = any time in this tick
     * (a thread that has not run since its previous sample). */
    uint64_t  at_ns;
};

typedef void (*pyvm_thread_fn)(void *ctx, const struct pyvm_thread *t);

/* Samples every thread of every interpreter once and calls fn for each
 * thread whose stack was read consistently.  A stack that changed while it
 * was being read is re-read (bounded) and otherwise dropped and counted in
 * *rejected; a stack the thread could not have had is never passed on.
 * Returns the number of threads passed to fn, or -1 when the runtime
 * could not be read at all this time (counted by the caller). */
int pyvm_sample(pyvm_thread_fn fn, void *ctx, unsigned *rejected);

/* Whether frame f (a frame of a sample of thread state tstate, not a
 * pseudo-frame) is still on that thread's stack: found, reading down from
 * the thread's innermost frame now, within hops frames, at its address
 * and running its code.  A frame that returned and one of the same code
 * pushed again at its address look alike; what makes a yes mean "the
 * same call" is the caller's to say (sample/interp_join.c).  0 also when
 * a read fails. */
int pyvm_frame_still_on(uintptr_t tstate, const struct pyvm_frame *f,
                        unsigned hops);

/* Adds to counts the reads of a stack that failed since the last call, by
 * why: the two
 * reads of the chain disagreed or a frame could not be read (TORN), they
 * agreed but took longer than a consistent read may (SLOW), or the chain
 * read could not be a stack (OTHER: a cycle, a frame-cache anchor that
 * moved, a code object that would not resolve).  Each failed read is
 * followed by another, or by the sample's reject. */
enum { PYVM_FAILED_TORN, PYVM_FAILED_SLOW, PYVM_FAILED_OTHER, PYVM_FAILED_KINDS };
void pyvm_take_failed_reads(uint64_t counts[PYVM_FAILED_KINDS]);

/* Called by pyvm_sample for each thread whose stack it dropped as torn
 * (after its re-reads), with the thread state and the thread's native id
 * (0 = unknown), so that the caller can say where the thread was last
 * seen.  Set once before sampling; NULL = nobody asks. */
typedef void (*pyvm_reject_fn)(uintptr_t tstate, uint32_t native_tid);
void pyvm_on_reject(pyvm_reject_fn fn);

/* Forget per-thread caches (after fork in the child).  forker: the
 * parent's id of the thread that called fork, which is the child's one
 * thread, its id now the child's pid.  CPython's own fork handling
 * (PyOS_AfterFork_Child) writes the new id into that thread's state; a
 * process forked from C without it (uWSGI's workers, unless
 * --py-call-osafterfork) keeps the parent's id there, which the walk then
 * reads as the child's (pyprof(7), Fork).  pid: the child's. */
void pyvm_after_fork(uint32_t forker, uint32_t pid);

#endif
