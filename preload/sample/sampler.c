/*
 * sampler.c — the thread, its timer, one tick, and the requests that end
 * or suspend an image's file (lifecycle.c makes them: lifecycle.h).
 *
 * Only this thread touches the writer once it runs; other threads (exit
 * paths, signal handlers, exec hooks) post a request, kick the thread with
 * tgkill and wait for the acknowledgement, bounded, using only
 * async-signal-safe calls.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/hash.h"
#include "base/image_mem.h"
#include "sample/apart.h"
#include "sample/control.h"
#include "sample/deadlines.h"
#include "python/thread_name.h"
#include "python/asyncio_tasks.h"
#include "sample/interp_join.h"
#include "sample/pseudo_frames.h"
#include "sample/task_frames.h"
#include "sample/lifecycle.h"
#include "base/log.h"
#include "record/not_profiled.h"
#include "base/own_fd.h"
#include "pyprof/format.h"
#include "python/pyvm.h"
#include "guard/safe_read.h"
#include "sample/sampler.h"
#include "base/identity.h"
#include "base/uncounted.h"
#include "base/thread_cpu.h"
#include "record/writer.h"
#include "pyprof/control.h"

#define WAIT_LIMIT_MS 2000
/* Below this interval the thread polls the clock instead of sleeping:
 * any timer wake-up (signal, timerfd, clock_nanosleep alike) costs 13-20
 * us of CPU on a VM (measured on the 2-core development VM; 2-5 us on
 * bare metal), so sleeping cannot keep up there and costs nearly as much
 * as polling does. */
#define SPIN_BELOW_NS 50000

/* Whether the rate asked is one the sampler polls for (may_spin) rather
 * than sleeping between ticks. */
static int rate_polls(void)
{
    return 1000000000ULL / pp_config.hz < SPIN_BELOW_NS;
}

enum request { REQ_NONE, REQ_FINISH };

struct thread_slot {
    uint32_t tid;
    uint32_t idx;           /* writer's thread index; 0 = free slot        */
    uintptr_t tstate;
    uint64_t cpu_ns;
    double credit;          /* CPU time not yet counted, in ticks (on_cpu) */
    double threshold;       /* the credit the next PP_SAMPLE_ON_CPU takes  */
    uint64_t missed_seen;   /* counters.missed at the thread's last sample */
    uint8_t spliced;        /* its last sample had asyncio tasks spliced in */
    unsigned task_stride;   /* pending tasks: each looked at every so many
                               ticks (pending_tasks)                      */
    /* The program's name of the thread (thread_name.h), looked for at the
     * slot's first samples and then once a second: its hash (0 = none
     * found), the time of the next look (tick_now's clock), the looks left
     * before that slows down. */
    uint64_t name_hash;
    uint64_t name_due;
    unsigned name_tries;
    uint32_t file_gen;      /* the file its THREAD record is in (writer) */
};

/* Shared with the threads that start, pause and end the sampler
 * (lifecycle.c, the fork wrapper): atomics; or plain values written
 * before the atomic store that publishes them (the end request's
 * how/value/discard before `request`, file_created before the thread
 * starts); or under tick_lock, which a tick holds and so does the forking
 * thread across fork(). */
PP_CHILD_WRITES static pthread_t thread;
PP_CHILD_WRITES static _Atomic pid_t sampler_tid;   /* 0 until the thread names itself   */
PP_CHILD_WRITES static _Atomic int running;
PP_CHILD_WRITES static _Atomic int request;         /* enum request                      */
PP_CHILD_WRITES static _Atomic int acked;           /* the end was served                */
PP_CHILD_WRITES static _Atomic int paused;          /* asleep on the control page        */
PP_CHILD_WRITES static int req_how, req_value;
PP_CHILD_WRITES static int discard_on_finish;   /* exec of a fork child that never sampled */
PP_CHILD_WRITES static int served_elsewhere;    /* an exit's end served by the exiting
                                   thread (sampler_end), under tick_lock */
static void (*file_created)(void);
PP_CHILD_WRITES static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;

/* The sampler thread's own, and a fork child's before its sampler starts
 * (sampler_after_fork).  counters.samples is also read, racily but a
 * whole word at a time, by pp_before_exec. */
PP_CHILD_WRITES static struct writer_counters counters;
static struct thread_slot *threads;
PP_CHILD_WRITES static size_t threads_cap, threads_used;
PP_CHILD_WRITES static uint64_t tick_now;   /* CLOCK_MONOTONIC at the tick being taken */
PP_CHILD_WRITES static uint32_t next_thread_idx;
PP_CHILD_WRITES static uint64_t last_flush_ns;
PP_CHILD_WRITES static int file_open;
PP_CHILD_WRITES static int file_flushed;    /* the open file has been flushed once       */
PP_CHILD_WRITES static struct deadlines deadlines;
/* The deadlines are this image's and running: started here (a fork
 * child's are its parent's copy until its sampler starts them) and not
 * paused (the time paused is neither ticks nor missed ones: pyprof(7),
 * "Sampling on demand").  Set under tick_lock: an exit served on the
 * exiting thread counts the deadlines it ends (serve_exit_here). */
PP_CHILD_WRITES static int deadlines_live;
PP_CHILD_WRITES static int main_gone;       /* the main thread ended with pthread_exit */
PP_CHILD_WRITES static int pinned;          /* started on the forking thread's CPU: beside_forker() */
/* Sampling on demand, in the open file: the window whose START it has
 * (0: none open), the last of the tree's marks it has. */
PP_CHILD_WRITES static uint32_t window_open, marks_done;
/* Time segments (pyprof(7), "Bounded disk"): the open file's number, the
 * image's first file's start, and the counters as they were when the
 * open file began (a segment's count from its own start). */
PP_CHILD_WRITES static uint32_t segment_seq;
PP_CHILD_WRITES static uint64_t image_start_ns;
PP_CHILD_WRITES static struct writer_counters segment_base;
PP_CHILD_WRITES static int threads_stale;   /* a fork child's copy of the parent's table */

static pid_t gettid_raw(void) { return (pid_t)syscall(SYS_gettid); }

static uint64_t mono_ns(void) { return pp_clock_ns(CLOCK_MONOTONIC); }

/* Wakes whoever waits for the end to be served (sampler_end,
 * sampler_wait_ended). */
static void wake_waiters(void)
{
    syscall(SYS_futex, (int *)&acked, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void ack(void)
{
    atomic_store(&acked, 1);
    wake_waiters();
}

/* ------------------------------------------------------------ threads */

static int grow_threads(void)
{
    size_t cap = threads_cap ? threads_cap * 2 : 256;
    /* A fork child gets it empty without a write (image_mem.h). */
    struct thread_slot *t = image_mem_alloc(cap * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < threads_cap; i++) {
        if (!threads[i].idx)
            continue;
        size_t j = (threads[i].tid * 2654435761u) & (cap - 1);
        while (t[j].idx)
            j = (j + 1) & (cap - 1);
        t[j] = threads[i];
    }
    image_mem_free(threads, threads_cap * sizeof *threads);
    threads = t;
    threads_cap = cap;
    return 0;
}

/* Every file defines its own threads: a file opened after a discarded one
 * (a fork child's exec that failed) starts with an empty table.  A fork
 * child's copy of the parent's is zero-filled already (image_mem.h), or
 * stale where the kernel cannot do that, and is emptied here, at its
 * first file, not at the fork: a child that ends or execs before then
 * must not copy its pages. */
static void clean_threads(void)
{
    if (!threads_stale && !threads_used)
        return;
    if (threads)
        memset(threads, 0, threads_cap * sizeof *threads);
    threads_used = 0;
    next_thread_idx = 0;
    threads_stale = 0;
}

/* The OS's name of thread tid; for the main thread, when the program's
 * was not found (threading not imported), threading's default. */
static void os_thread_name(uint32_t tid, int program_named, char *name, size_t cap)
{
    if ((pid_t)tid == pp_state.pid && !program_named) {
        snprintf(name, cap, "MainThread");
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    FILE *f = fopen(path, "re");
    name[0] = 0;
    if (f) {
        if (fgets(name, (int)cap, f))
            name[strcspn(name, "\n")] = 0;
        fclose(f);
    }
}

/* Looks for the program's name of s's thread (state tstate of the main
 * interpreter) when it is due, and writes the thread's record again when
 * that name is new (pyprof(7), "Thread names").  first: the slot was just
 * made, and its record is written whatever is found. */
static void name_thread(struct thread_slot *s, uintptr_t tstate, int first)
{
    if (!first && tick_now < s->name_due)
        return;
    /* A thread's first samples may come before _bootstrap_inner runs:
     * look at each of the first few, then once a second. */
    if (s->name_tries) {
        s->name_tries--;
        s->name_due = 0;
    } else {
        s->name_due = tick_now + 1000000000ULL;
    }
    char py[WRITER_THREAD_NAME], os[WRITER_THREAD_NAME];
    int found = tstate && thread_name_read(tstate, (pid_t)s->tid == pp_state.pid,
                                           py, sizeof py) > 0;
    uint64_t h = found ? pp_hash_bytes(py, strlen(py)) : 0;
    if (!first && h == s->name_hash)
        return;
    if (!first && !found)
        return;                 /* a name once found is kept */
    s->name_hash = h;
    s->file_gen = writer_file_gen();
    /* A main thread the program did not rename is MainThread, as before
     * threading is imported: its OS name (the process's) is not shown. */
    int main_default = found && (pid_t)s->tid == pp_state.pid &&
                       !strcmp(py, "MainThread");
    os_thread_name(s->tid, found && !main_default, os, sizeof os);
    writer_thread(s->idx, s->tid, found ? py : os,
                  found && !main_default ? os : NULL);
}

/* A number drawn from (0, 1] (xorshift64*, seeded once per image from its
 * pid and the clock: only spreads the flags of on_cpu, no secret). */
PP_CHILD_WRITES static uint64_t rng_state;

static double uniform01(void)
{
    if (!rng_state)
        rng_state = (mono_ns() ^ ((uint64_t)pp_state.pid << 32)) | 1;
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t v = (rng_state * 0x2545F4914F6CDD1DULL) >> 11;     /* 53 bits */
    return ((double)v + 1.0) / 9007199254740992.0;
}

/* Whether this sample takes PP_SAMPLE_ON_CPU, and how many more CPU-mode
 * samples of its stack it is worth (*extra).  Counted, a thread's flagged
 * samples and extras give its CPU time in ticks, at any load (pyprof(7),
 * "CPU mode"; pyprof(5), CPU_EXTRA): the CPU time the kernel counted since
 * the thread's previous sample goes to its credit, in ticks of the rate
 * asked, and a sample takes the flag when the credit reaches a threshold
 * drawn anew from (0, 1] after each flag, which spends one tick of it.  So
 * a thread that gets a third of a CPU has about one sample in three
 * flagged, spread at random, rather than none because it never ran for
 * half of an interval.  Deadlines the sampler missed (kept off its CPU by
 * a busy machine) cannot flag samples that were never taken: the CPU time
 * the thread used in them stays in the credit, and whatever whole ticks
 * of it remain after the flag go to this sample's stack as extras.
 * Credit beyond CREDIT_MAX ticks plus those missed deadlines (a thread
 * not sampled at deadlines that were served: stacks rejected) is dropped
 * rather than lent to the stacks of later samples, and so is credit
 * beyond CARRY_MAX ticks more than that carried by samples that could
 * not take it (below).
 *
 * Only a sample that stands at a random point of the thread's CPU time
 * may take the flag (may_flag).  A thread that holds the GIL but is off
 * its CPU was preempted, and its stack is where the scheduler stopped
 * it: on a busy machine that is where its slices end, at steps of a
 * slice of its CPU time, which can keep falling in the same part of a
 * loop that repeats at a near multiple of the slice (beside 5 hogs a
 * 70/30 split read 0.80/0.20).  Such a sample carries the credit on to
 * the next one that finds the thread running, unless the credit would
 * then pass CREDIT_MAX and the missed deadlines (a thread the sampler
 * never sees running: one CPU for both, or a sampler that only gets a
 * CPU when the thread loses it), where it is flagged as before rather
 * than dropped.  A thread without the GIL that is off its CPU waits
 * where it chose to (or for the GIL): its samples may take the flag. */
#define CREDIT_MAX 2.0
#define CARRY_MAX 4.0

static int on_cpu(struct thread_slot *s, uint64_t cpu, int may_flag, uint32_t *extra)
{
    uint64_t missed = counters.missed - s->missed_seen;
    *extra = 0;
    s->missed_seen = counters.missed;
    if (s->cpu_ns == UINT64_MAX || cpu <= s->cpu_ns)
        return 0;
    double kept = CREDIT_MAX + (double)(missed < PP_MAX_CPU_EXTRA ? missed
                                                                   : PP_MAX_CPU_EXTRA);
    s->credit += (double)(cpu - s->cpu_ns) * (double)pp_config.hz / 1e9;
    if (s->credit > kept + CARRY_MAX)
        s->credit = kept + CARRY_MAX;
    if (!may_flag && s->credit <= kept)
        return 0;
    if (s->credit < s->threshold)
        return 0;
    s->credit -= 1.0;
    s->threshold = uniform01();
    if (s->credit >= 2.0) {
        /* keep one tick and the fraction, as a thread on time would */
        double n = (double)(uint64_t)(s->credit - 1.0);
        *extra = (uint32_t)n;
        s->credit -= n;
    }
    return 1;
}

/* Whether t's stack, read with the thread's CPU time at cpu, may take
 * the flag of on_cpu: the thread is still running (its CPU time, read
 * again, has moved on), or it is not holding the GIL, or it has not run
 * since its last sample (nothing to flag).  The second read is paid only
 * by a thread that ran and holds the GIL. */
static int random_point(const struct thread_slot *s, const struct pyvm_thread *t,
                        uint64_t cpu)
{
    uint64_t again;
    if (!(t->flags & PP_SAMPLE_HOLDS_GIL) || s->cpu_ns == UINT64_MAX ||
        cpu <= s->cpu_ns || !t->native_tid)
        return 1;
    int on = pp_thread_cpu_ns(t->native_tid, &again) == 0 && again > cpu;
    apart_note(on);
    return on;
}

/* The slot for (tid, tstate): a tid reused by a new thread, or a thread
 * state reused by a new thread, gets a new index and name.  Only a main
 * interpreter's state (bind) names its thread: a thread in a
 * subinterpreter may get a new state there for every call, and one that
 * lives only there is known by its tid (a slot it made has tstate 0, for
 * a main interpreter's state of the thread to take). */
static struct thread_slot *thread_slot(uint32_t tid, uintptr_t tstate, int bind)
{
    if ((threads_used + 1) * 2 > threads_cap && grow_threads() != 0)
        return NULL;
    size_t j = (tid * 2654435761u) & (threads_cap - 1);
    for (; threads[j].idx; j = (j + 1) & (threads_cap - 1))
        if (threads[j].tid == tid)
            break;
    struct thread_slot *s = &threads[j];
    if (s->idx && (s->tstate == tstate || !bind))
        return s;
    if (s->idx && !s->tstate) {
        s->tstate = tstate;
        s->name_tries = 8;
        s->name_due = 0;
        return s;
    }
    if (!s->idx)
        threads_used++;
    s->tid = tid;
    s->tstate = bind ? tstate : 0;
    s->idx = ++next_thread_idx;
    s->cpu_ns = UINT64_MAX;        /* first sample: on-CPU unknown -> off */
    s->credit = 0;
    s->threshold = uniform01();
    s->missed_seen = counters.missed;
    s->spliced = 0;
    s->task_stride = 1;
    s->name_tries = 8;
    name_thread(s, bind ? tstate : 0, 1);
    return s;
}

/* A thread's stack was dropped as torn: the writer counts it under where
 * the thread was last seen (a thread never sampled yet is not known). */
static void on_reject(uintptr_t tstate, uint32_t tid)
{
    interp_join_drop(tid, tstate);
    if (!threads_cap)
        return;
    size_t j = (tid * 2654435761u) & (threads_cap - 1);
    for (; threads[j].idx; j = (j + 1) & (threads_cap - 1))
        if (threads[j].tid == tid) {
            if (threads[j].tstate == tstate || !threads[j].tstate)
                writer_reject(threads[j].idx);
            return;
        }
}

/* ------------------------------------------------------------ tick */

/* Pending asyncio tasks of the loop thread t runs (pyprof(5), TASK_WAIT):
 * at most TASK_WAIT_TICK are looked at a tick; with more in the list each
 * position is looked at every stride ticks and counts for that many, the
 * stride set from the list's length at the previous tick. */
#define TASK_WAIT_TICK 64
static void pending_tasks(struct thread_slot *s, const struct pyvm_thread *t)
{
    static uintptr_t tasks[TASK_WAIT_TICK];
    static struct task_chain chain;
    unsigned total, stride = s->task_stride ? s->task_stride : 1;
    unsigned n = asyncio_pending_tasks(t->tstate, stride, (unsigned)counters.ticks, tasks,
                                       TASK_WAIT_TICK, &total);
    for (unsigned i = 0; i < n; i++) {
        if (!asyncio_waiting_chain(tasks[i], &chain))
            continue;
        const struct pyvm_thread *w = task_wait_frames(&chain, t);
        if (w)
            writer_task_wait(s->idx, w, stride);
    }
    s->task_stride = total > TASK_WAIT_TICK ? (total + TASK_WAIT_TICK - 1) / TASK_WAIT_TICK : 1;
}

/* Whether this tick's TICK record has its time.  A sample stands for
 * the moment its stack was read: the tick takes the time of its first
 * sample's stack (pyvm_thread.at_ns), not when the sampler woke, which is
 * a few microseconds earlier and 10-30 in about one tick of ten on the
 * development VMs (pyprof(7), "Deep stacks"); a tick with no sample, the
 * time its reading began. */
PP_CHILD_WRITES static int tick_stamped;
PP_CHILD_WRITES static uint64_t tick_reading;   /* when this tick's reading began */

/* Threads whose program names are due to be looked at again: after the
 * tick has read every thread, so that the reads of a name (a few, or a
 * search of sys.modules) never stand between two threads' stacks.  One
 * not listed (more than NAMES_DUE_MAX due at once) is looked at on a
 * later tick. */
#define NAMES_DUE_MAX 32
static uint32_t names_due[NAMES_DUE_MAX];
PP_CHILD_WRITES static unsigned names_due_n;

static void name_due_threads(void)
{
    for (unsigned i = 0; i < names_due_n; i++) {
        size_t j = (names_due[i] * 2654435761u) & (threads_cap - 1);
        for (; threads[j].idx; j = (j + 1) & (threads_cap - 1))
            if (threads[j].tid == names_due[i]) {
                if (threads[j].tstate)
                    name_thread(&threads[j], threads[j].tstate, 0);
                break;
            }
    }
    names_due_n = 0;
}

/* Writes t; bind: t is a main interpreter's state (thread_slot). */
static void take(const struct pyvm_thread *t, int bind)
{
    uint64_t cpu = 0, at = t->at_ns;
    if (t->flags & PP_SAMPLE_IN_GC)
        t = pseudo_gc_on_top(t);
    if (t->cpu_known)
        cpu = t->cpu_ns;
    else if (t->native_tid && pp_thread_cpu_ns(t->native_tid, &cpu) != 0)
        return;
    if (main_gone && t->native_tid == (uint32_t)pp_state.pid)
        return;
    struct thread_slot *s = thread_slot(t->native_tid, t->tstate, bind);
    if (!s)
        return;
    if (s->file_gen != writer_file_gen())
        name_thread(s, bind && s->tstate == t->tstate ? t->tstate : 0, 1);
    else if (bind && s->tstate == t->tstate && tick_now >= s->name_due &&
             names_due_n < NAMES_DUE_MAX)
        names_due[names_due_n++] = s->tid;
    /* asyncio tasks: frames spliced into the stack, so that the writer's
     * reuse of the previous sample's outer frames (same_outer) does not
     * hold across a sample that has them or had them */
    int spliced;
    const struct pyvm_thread *loop = t;
    t = task_frames(t, &spliced);
    struct pyvm_thread fresh;
    if (spliced || s->spliced) {
        fresh = *t;
        fresh.seq = fresh.prev_seq = 0;
        fresh.same_outer = 0;
        t = &fresh;
    }
    s->spliced = (uint8_t)spliced;
    unsigned flags = t->flags;
    uint32_t extra;
    if (on_cpu(s, cpu, random_point(s, t, cpu), &extra))
        flags |= PP_SAMPLE_ON_CPU;
    s->cpu_ns = cpu;
    if (!tick_stamped) {
        writer_tick_begin(at ? at : tick_reading);
        tick_stamped = 1;
    }
    writer_sample(s->idx, t, flags);
    if (extra)
        writer_cpu_extra(s->idx, flags, extra);
    counters.samples++;
    if (bind)
        pending_tasks(s, loop);
}

/* ctx: unused (the CPU credit needs no tick time). */
static void on_thread(void *ctx, const struct pyvm_thread *t)
{
    (void)ctx;
    /* No Python frame: nothing to attribute.  This also covers a thread
     * state not yet bound to its thread, which still carries its
     * creator's native id and would be mistaken for it. */
    if (!t->depth)
        return;
    /* A thread state whose OS thread is gone (the parent's threads in a
     * fork child, before CPython prunes them; a main thread that ended
     * with pthread_exit, which CPython never prunes) is not sampled. */
    if (t->native_tid == PYVM_TID_ENDED)
        return;
    if (t->interp != 0) {
        if (!interp_join_hold(t))
            take(interp_join_alone(t), 0);
        return;
    }
    take(interp_join_with(t), 1);
}

/* The main thread that ended with pthread_exit while others go on stays a
 * zombie until the process ends: its CPU clock still answers, but the
 * kernel no longer finds memory behind its id.  Asked at most every 10 ms
 * (a system call of about a microsecond). */
#define MAIN_CHECK_NS 10000000ULL
static void check_main(uint64_t now)
{
    PP_CHILD_WRITES static uint64_t last;
    if (main_gone || now - last < MAIN_CHECK_NS)
        return;
    last = now;
    char probe = 0, got;
    struct iovec l = { &got, 1 }, r = { &probe, 1 };
    if (process_vm_readv(pp_state.pid, &l, 1, &r, 1, 0) < 0 && errno == ESRCH)
        main_gone = 1;
}

static void count_own_cpu(void)
{
    pid_t tid = atomic_load(&sampler_tid);
    if (!sampler_on_this_thread()) {    /* an end served by the program's */
        uint64_t v;
        if (tid && pp_thread_cpu_ns((uint32_t)tid, &v) == 0)
            counters.sampler_cpu_ns = v;
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    counters.sampler_cpu_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
                              (uint64_t)ts.tv_nsec;
}

/* The process's title (pyprof(5), TITLE): the hash of its command line
 * as last written, the header's argv to begin with.  Looked at with each
 * flush, and at the end of a file that has flushed or lived TITLE_END_NS:
 * not in a fork child that execs or exits at once, which it would cost a
 * read of /proc, but in a worker that titled itself after its file was
 * made and ended before a flush. */
PP_CHILD_WRITES static uint64_t title_hash;
#define TITLE_END_NS 20000000ULL

/* The one form both sides are compared in: the arguments as the kernel
 * gives them (NUL after each), the NULs at the end dropped (an empty last
 * argument leaves nothing behind it), the others made spaces.  Returns
 * the length. */
static size_t title_form(char *buf, size_t n)
{
    while (n > 0 && !buf[n - 1])
        n--;
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[n] = 0;
    return n;
}

static void title_from_argv(void)
{
    char buf[PP_MAX_TITLE + 1];
    size_t n = 0;
    for (char *const *a = pp_state.argv; a && *a && n < PP_MAX_TITLE; a++) {
        size_t k = strnlen(*a, PP_MAX_TITLE - n);
        memcpy(buf + n, *a, k);
        n += k;
        if (n < PP_MAX_TITLE)
            buf[n++] = 0;
    }
    n = title_form(buf, n);
    title_hash = pp_hash_bytes(buf, n);
}

static void check_title(void)
{
    char buf[PP_MAX_TITLE + 1];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t got = read(fd, buf, PP_MAX_TITLE);
    close(fd);
    if (got <= 0)
        return;
    size_t n = title_form(buf, (size_t)got);
    if (!n)
        return;
    uint64_t h = pp_hash_bytes(buf, n);
    if (h != title_hash) {
        title_hash = h;
        writer_title(buf);
    }
}

static int segmented(void)
{
    return pp_config.segment_s || pp_config.segment_kb;
}

/* The bytes after which the open segment ends: the tree's control page
 * says, from how many processes write at once, else PYPROF_SEGMENT_KB. */
static uint64_t segment_bytes(void)
{
    uint64_t b = control_segment_bytes();
    return b ? b : pp_config.segment_kb * 1024ULL;
}

/* The counters of the open file: a segment's from its own start. */
static const struct writer_counters *file_counters(void)
{
    static struct writer_counters c;
    if (!segmented())
        return &counters;
    const struct writer_counters *b = &segment_base;
    c.samples = counters.samples - b->samples;
    c.rejected = counters.rejected - b->rejected;
    c.missed = counters.missed - b->missed;
    c.sampler_cpu_ns = counters.sampler_cpu_ns - b->sampler_cpu_ns;
    c.ticks = counters.ticks - b->ticks;
    c.tick_ns = counters.tick_ns - b->tick_ns;
    c.idle = counters.idle - b->idle;
    for (size_t i = 0; i < sizeof c.failed_reads / sizeof *c.failed_reads; i++)
        c.failed_reads[i] = counters.failed_reads[i] - b->failed_reads[i];
    return &c;
}

static int new_file(void);

/* After a tick or a flush: the open segment has had its time, or its
 * bytes with those its pending records can add (looked at every tick, a
 * segment ends at most a tick's records past its size), and the image
 * goes on in a new one (its END says so), which defines again what it
 * uses: threads at their next sample, the title, the open window. */
static void segment_check(uint64_t now)
{
    if (!segmented() || file_open <= 0)
        return;
    uint64_t age = now > writer_start_ns() ? now - writer_start_ns() : 0;
    if (!(pp_config.segment_s && age >= pp_config.segment_s * 1000000000ULL) &&
        !(segment_bytes() && writer_bytes() + writer_pending() >= segment_bytes()))
        return;
    count_own_cpu();
    writer_end(PP_END_SEGMENT, 0, file_counters());
    segment_seq++;
    if (new_file() != 0) {
        file_open = -1;     /* said why; the image samples no more */
        return;
    }
    title_from_argv();
    check_title();
    window_open = 0;
}

static void flush(uint64_t now)
{
    count_own_cpu();
    check_title();
    writer_flush(file_counters());
    last_flush_ns = now;
    file_flushed = 1;
    segment_check(now);
}

/* A fork child young enough that an exec now would make it one spawn
 * with the program it execs, and leave no file (lifecycle.c): its file
 * is begun but not created, so that such an exec, the common case of a
 * fork child that samples at all (a PATH search and an exec take about a
 * millisecond, ten ticks at 10 kHz), neither creates nor removes it, and
 * holds the sampler instead of stopping it (sampler_hold_unopened).  The
 * first tick past the window creates it, or its first write, or its end
 * (pyprof(7), "Following children"). */
static int in_spawn_window(uint64_t now)
{
    return pp_state.started_by == PP_START_FORK &&
           now - pp_state.forked_ns < PP_SPAWN_WINDOW_NS;
}

/* The image's file, or its next segment's (segment_seq), with the
 * counters it starts from. */
static int new_file(void)
{
    struct writer_image img = {
        .argv = pp_state.argv,
        .interval_ns = 1000000000ULL / pp_config.hz,
        .py_version = pyvm_version(),
        .free_threaded = pyvm_free_threaded(),
        .segmented = segmented(),
        .seq = segment_seq,
        .threads_before = segment_seq ? next_thread_idx : 0,
        .image_start_ns = image_start_ns,
        .defer_create = in_spawn_window(mono_ns()),
    };
    if (writer_open(&img) != 0)
        return -1;
    if (!segment_seq)
        image_start_ns = writer_start_realtime_ns();
    segment_base = counters;
    /* Deadlines before the interpreter was ready had nothing to sample;
     * a file's account starts with the file (its header's start). */
    deadlines_file_start(&deadlines, writer_start_ns());
    return 0;
}

/* The file is created when the interpreter is first ready, not at start:
 * programs that link libpython without ever starting it (perf, gdb, vim)
 * must get no file. */
static int open_file(void)
{
    if (file_open)
        return file_open > 0;   /* -1: creating it failed, stay idle */
    if (!pyvm_ready()) {
        if (pyvm_refused()) {
            file_open = -1;
            pp_config_report_bad_log();
            pp_not_profiled("%s", pyvm_refusal());
        }
        return 0;
    }
    pp_config_report_bad_log();
    segment_seq = 0;
    if (new_file() != 0) {
        file_open = -1;
        return 0;
    }
    clean_threads();
    title_from_argv();
    file_flushed = 0;
    file_open = 1;
    window_open = marks_done = 0;
    atomic_store(&pp_profile.has_file, 1);
    if (file_created)
        file_created();
    return 1;
}

/* The window this file samples in, and the tree's marks it does not
 * have yet (PP_REC_CONTROL), before the tick's samples.  Under
 * tick_lock. */
static void control_records(void)
{
    uint32_t w = control_window();
    if (w && w != window_open) {
        writer_control(PP_CONTROL_REC_START, w, 0, control_start_ns(), "", 0);
        window_open = w;
    }
    char text[PP_CONTROL_MARK_TEXT];
    size_t len;
    uint64_t at;
    for (uint32_t seq; (seq = control_next_mark(marks_done, &at, text, &len)); ) {
        writer_control(PP_CONTROL_REC_MARK, window_open, seq, at, text, len);
        marks_done = seq;
    }
}

/* Sampling stops in this file's window: its STOP, at this moment (after
 * its last tick, which may follow the controller's stop or --for's end
 * by up to an interval: readers take a window to its latest STOP), and a
 * flush, since no tick will flush it while the process is paused. */
static void window_closes(void)
{
    pthread_mutex_lock(&tick_lock);
    if (file_open > 0 && window_open) {
        writer_control(PP_CONTROL_REC_STOP, window_open, 0,
                       pp_clock_ns(CLOCK_REALTIME), "", 0);
        window_open = 0;
        flush(mono_ns());
    }
    pthread_mutex_unlock(&tick_lock);
}

/* How long a fork child's sampler stays on the CPU of the thread that
 * forked (beside_forker). */
#define BESIDE_FORKER_NS 20000000ULL

static int within_fork_storm(uint64_t now)
{
    return now - pp_state.forked_ns < BESIDE_FORKER_NS;
}

/* A fork child's first milliseconds are its copy-on-write storm: every
 * page it writes, the interpreter's and ours, is copied from the parent.
 * In a process whose threads run on two CPUs each such copy interrupts
 * the other CPU to flush its view of the page (a TLB shootdown, tens of
 * microseconds on a VM), so a sampler ticking beside the program on
 * another CPU made both threads' copies dear: at 10 kHz a fork and _exit
 * child took 1.7 ms more than plainly, 40 % of its main thread's time in
 * those flushes.  So the sampler of a fork child starts on the CPU of the
 * thread that forked and moves to that thread's CPUs once the storm is
 * over (pyprof(7), "Timing and cost").  Not at rates that poll
 * (may_spin): a poller must not share the program's CPU.  Returns that
 * CPU, or -1: no pin.  The pin is the thread's attribute: the C library
 * then starts the thread where the scheduler puts a new one, stopped,
 * and lets it go once pinned; pinned from the start (inherited from the
 * main thread, pinned for the moment) it took the child's CPU at once
 * for its whole set-up, two context switches more a child. */
static int beside_forker(void)
{
    if (pp_state.started_by != PP_START_FORK || rate_polls() ||
        !within_fork_storm(mono_ns()))
        return -1;
    int cpu = sched_getcpu();
    return cpu >= 0 && cpu < CPU_SETSIZE ? cpu : -1;
}

/* Back to the CPUs the program's main thread may run on now (as a
 * thread it made would), or else to any the process may use, once the
 * child is past its first copies. */
static void leave_forker(uint64_t now)
{
    if (!pinned || within_fork_storm(now))
        return;
    pinned = 0;
    cpu_set_t set;
    if (!apart_program_cpus(&set, -1))
        memset(&set, 0xff, sizeof set);     /* the kernel keeps the allowed */
    sched_setaffinity(0, sizeof set, &set);
}

/* A tick that serves the latest deadline due, the `missed` before it
 * having passed unserved.  They are counted under tick_lock: an exit
 * served on the exiting thread (serve_exit_here) writes the counters in
 * the file's END while this thread may be at a tick. */
static void tick(uint64_t missed)
{
    uint64_t now = mono_ns();
    leave_forker(now);
    pthread_mutex_lock(&tick_lock);
    counters.missed += deadlines_pass(&deadlines, missed);
    deadlines_pass(&deadlines, 1);
    if (file_open <= 0 && !open_file()) {
        pthread_mutex_unlock(&tick_lock);
        return;
    }
    /* Once the file is open every deadline is a tick, a missed one, or an
     * idle one while the interpreter finalizes and has nothing to sample. */
    if (pyvm_ready()) {
        unsigned rejected = 0;
        control_records();
        check_main(now);
        tick_now = now;
        writer_tick_prepare();
        interp_join_begin();
        tick_stamped = 0;
        tick_reading = mono_ns();
        if (pyvm_sample(on_thread, NULL, &rejected) < 0)
            rejected++;
        for (const struct pyvm_thread *t; (t = interp_join_leftover()); )
            take(t, 0);
        if (!tick_stamped)
            writer_tick_begin(tick_reading);
        writer_tick_end();
        name_due_threads();
        pyvm_take_failed_reads(counters.failed_reads);
        counters.rejected += rejected;
        counters.ticks++;
        counters.tick_ns += mono_ns() - now;
    } else {
        counters.idle++;
    }
    if (writer_deferred() && !in_spawn_window(now) && writer_create() != 0) {
        file_open = -1;         /* said why; the image samples no more */
        atomic_store(&pp_profile.has_file, 0);
    } else if (now - last_flush_ns >= (uint64_t)pp_config.flush_ms * 1000000ULL) {
        flush(now);
        safe_read_check_owner();
    } else {
        segment_check(now);
    }
    pthread_mutex_unlock(&tick_lock);
}

/* ------------------------------------------------------------ thread */

static struct timespec ns_timespec(uint64_t ns)
{
    return (struct timespec){ (time_t)(ns / 1000000000ULL),
                              (long)(ns % 1000000000ULL) };
}

/* Arms the timer at the sampling interval, or disarms it (on 0). */
static int arm_timer(timer_t *timer, int on)
{
    uint64_t ns = on ? 1000000000ULL / pp_config.hz : 0;
    struct itimerspec its = { ns_timespec(ns), ns_timespec(ns) };
    return timer_settime(*timer, 0, &its, NULL);
}

/* The ticks' phase moves to a random point of the interval every
 * PHASE_TICKS ticks.  A timer at a fixed phase keeps its ticks at the
 * same points between the scheduler's (250 Hz here), where a busy
 * machine's threads start and end their runs, so that the ticks fall on
 * the same few points of a thread's CPU time, and of any loop in it that
 * repeats at a near multiple of the interval: beside 5 hogs a 70/30 split
 * read 0.51/0.49 or 0.83/0.17 run to run at 1 kHz.  Moved by up to half
 * an interval either way, the deadlines keep their rate (pyprof(7),
 * "Timing and cost"); one timer_settime each time. */
#define PHASE_TICKS 16u
PP_CHILD_WRITES static unsigned phase_ticks;

static void shift_phase(timer_t *timer)
{
    uint64_t iv = deadlines.iv;
    int64_t shift = (int64_t)(uniform01() * (double)iv) - (int64_t)(iv / 2);
    pthread_mutex_lock(&tick_lock);
    uint64_t next = deadlines_shift(&deadlines, mono_ns(), shift);
    pthread_mutex_unlock(&tick_lock);
    struct itimerspec its = { ns_timespec(iv), ns_timespec(next) };
    timer_settime(*timer, TIMER_ABSTIME, &its, NULL);
}

static int make_timer(timer_t *timer)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = PP_TIMER_SIG;
    /* Its value names the output directory too: pyprof-run waits for a
     * process of its tree whose file is not there yet (timer_tag.h). */
    sev.sigev_value.sival_ptr = (void *)(uintptr_t)pp_timer_value(pp_out_dir());
    sev._sigev_un._tid = gettid_raw();
    if (timer_create(CLOCK_MONOTONIC, &sev, timer) != 0)
        return -1;
    return arm_timer(timer, 1);
}


/* The file's END, under tick_lock; an image that ends before its first
 * tick still gets its file.  END carries the counters: no flush before
 * it, so that a file this small ends in one stored frame (writer_end). */
static void end_file(void)
{
    writer_hold_fd(1);
    if (file_open == 0)
        open_file();
    if (file_open > 0) {
        count_own_cpu();
        if (file_flushed || mono_ns() - writer_start_ns() >= TITLE_END_NS)
            check_title();
        writer_end(req_how, req_value, file_counters());
    }
    writer_hold_fd(0);
}

static void serve_request(void)
{
    pthread_mutex_lock(&tick_lock);
    if (served_elsewhere) {
        /* nothing: its file is whole */
    } else if (discard_on_finish) {
        if (file_open > 0)
            writer_discard();
        file_open = 0;
        atomic_store(&pp_profile.has_file, 0);
    } else {
        end_file();
    }
    pthread_mutex_unlock(&tick_lock);
}

/* Takes one of the signals in set, waiting at most *timeout (NULL: for
 * ever).  The system call itself, not glibc's sigtimedwait/sigwaitinfo:
 * those rewrite SI_TKILL into SI_USER, and the kicks of pp_finish (tgkill)
 * must be told apart from an application's kill(). */
static int take_signal(const sigset_t *set, siginfo_t *si,
                       const struct timespec *timeout)
{
    return (int)syscall(SYS_rt_sigtimedwait, set, si, timeout, (size_t)(_NSIG / 8));
}

/* A thread of the program other than the main one (which has ended), for
 * a signal to go to; 0 if there is none. */
static pid_t some_thread(void)
{
    DIR *d = opendir("/proc/self/task");
    pid_t found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != pp_state.pid && tid != atomic_load(&sampler_tid))
            found = tid;
    }
    if (d)
        closedir(d);
    return found;
}

/* Hands a signal that reached us through take_signal to where it
 * belongs: a timer tick, a kick from pp_finish (nothing to do: the
 * request is read anyway), or the application's own use of this signal
 * number, which goes to the main thread, or to another thread of the
 * program once the main thread has ended. */
static void other_signal(const siginfo_t *si)
{
    if (si->si_code == SI_TKILL && si->si_pid == pp_state.pid)
        return;
    pid_t to = main_gone ? some_thread() : pp_state.pid;
    if (to > 0)
        syscall(SYS_tgkill, pp_state.pid, to, si->si_signo);
}

/* When the file ends: the thread may have been off a CPU since it last
 * served a deadline, and the deadlines that passed meanwhile got no tick. */
static void count_late_locked(void)
{
    if (deadlines_live)
        counters.missed += deadlines_pass(&deadlines,
                                          deadlines_due(&deadlines, mono_ns()));
}

static void count_late(void)
{
    pthread_mutex_lock(&tick_lock);
    count_late_locked();
    pthread_mutex_unlock(&tick_lock);
}

/* Deadlines from now on, counted at once when the file is already open
 * (the image goes on after a failed exec), else from the file's start. */
static void start_deadlines(void)
{
    pthread_mutex_lock(&tick_lock);
    deadlines_init(&deadlines, mono_ns(), 1000000000ULL / pp_config.hz,
                   file_open > 0 ? 0 : UINT64_MAX);
    deadlines_live = 1;
    pthread_mutex_unlock(&tick_lock);
}

static void stop_deadlines(void)
{
    pthread_mutex_lock(&tick_lock);
    deadlines_live = 0;
    pthread_mutex_unlock(&tick_lock);
}

/* Whether polling may take a CPU for itself: never on a single CPU, where
 * it would take turns with the application. */
static int may_spin(void)
{
    cpu_set_t set;
    if (!rate_polls())
        return 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    return CPU_COUNT(&set) >= 2;
}

/* Sampling on demand (control.h): while the tree's control page says
 * not to sample, the thread sleeps on it, with no timer armed (timer:
 * NULL in the polling loop), and returns 1 when it woke to sample again,
 * its deadlines starting anew (time paused is neither ticks nor missed
 * ones); 0 at once if it may sample.  An end posted meanwhile wakes it
 * (sampler_end). */
/* A paused process still gets its file, with its header and no tick, so
 * that the tree's every process is in it and its counters show the pause
 * (pyprof(7), "Sampling on demand"): once its interpreter is ready, looked
 * at every 10 ms for at most 2 s (an interpreter is ready in tens of ms;
 * a program that links libpython without starting it never is, and gets
 * no file, as without the pause).  The first look after 10 ms, as a first
 * tick would be: a fork child that execs or exits at once makes no file
 * to remove.  The kick of an end ends the wait. */
static void file_while_paused(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, PP_TIMER_SIG);
    for (int i = 0; i < 200 && file_open == 0; i++) {
        struct timespec ts = { 0, 10000000L };
        siginfo_t si;
        if (take_signal(&set, &si, &ts) > 0 && atomic_load(&request) != REQ_FINISH)
            other_signal(&si);
        if (atomic_load(&request) == REQ_FINISH)
            return;
        pthread_mutex_lock(&tick_lock);
        if (file_open == 0 && open_file())
            flush(mono_ns());
        pthread_mutex_unlock(&tick_lock);
    }
}

static int pause_while_asked(timer_t *timer)
{
    if (control_sampling())
        return 0;
    if (timer)
        arm_timer(timer, 0);
    stop_deadlines();
    window_closes();
    file_while_paused();
    for (;;) {
        atomic_store(&paused, 1);
        if (atomic_load(&request) == REQ_FINISH) {
            atomic_store(&paused, 0);
            return 0;
        }
        if (control_sampling())
            break;
        control_wait();
    }
    atomic_store(&paused, 0);
    if (timer)
        arm_timer(timer, 1);
    start_deadlines();
    return 1;
}

/* High rates: ticks at fixed deadlines on the monotonic clock (vDSO, no
 * syscall), missed deadlines counted like timer overruns. */
static void spin_loop(const sigset_t *set)
{
    unsigned polls = 0;
    start_deadlines();
    for (;;) {
        pause_while_asked(NULL);
        if (atomic_load(&request) == REQ_FINISH) {
            /* The thread may have been off a CPU since its last look at
             * the clock: the deadlines that passed meanwhile are missed. */
            count_late();
            serve_request();
            return;
        }
        uint64_t due = deadlines_due(&deadlines, mono_ns());
        if (due) {
            tick(due - 1);
            continue;
        }
        /* Now and then, collect signals sent to us (see other_signal). */
        if (++polls % 4096 == 0) {
            siginfo_t si;
            struct timespec zero = { 0, 0 };
            if (take_signal(set, &si, &zero) > 0)
                other_signal(&si);
        }
        __builtin_ia32_pause();
    }
}

/* The sampler's end.  If every thread of the program has ended meanwhile,
 * the last one is in exit() (uncounted.h), and so is the process: it must
 * not end as a thread too.  Nor does it after serving an exit's end: the
 * process is ending, and the kernel ends the thread with it, without the
 * C library's thread-exit code, whose pages a fork child that exits at
 * once has not run (each a page fault: pyprof(7), "Fork"). */
static void *leave(void)
{
    if (!uncounted_recount() || (atomic_load(&request) == REQ_FINISH &&
                                 req_how == PP_END_EXIT))
        for (;;)
            pause();
    return NULL;
}

/* Whether the interpreter starts, waited for: a program that links
 * libpython without starting it (gdb, vim, perf) is not a Python process
 * and leaves no not-profiled record (pyprof(7), DIAGNOSTICS).  An exit or
 * exec before the interpreter was seen started ends the wait with no, at
 * once: pp_finish's kick is one of the signals waited for.  Polled often
 * at first (`python -c pass` is started for about a millisecond), seldom
 * once the program has run for a while. */
static int python_starts(const sigset_t *set)
{
    int (*started)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    for (long us = 0, step = 0; started && !started(); us += step) {
        if (atomic_load(&request) == REQ_FINISH)
            return 0;
        step = us < 200000 ? 250 : us < 2000000 ? 10000 : 100000;
        struct timespec ts = { 0, step * 1000L };
        siginfo_t si;
        if (take_signal(set, &si, &ts) > 0 && atomic_load(&request) != REQ_FINISH)
            other_signal(&si);
    }
    return 1;
}

static void *sampler_main(void *arg)
{
    (void)arg;
    sampler_tid = gettid_raw();
    apart_reset();
    /* Set up under tick_lock, which an exit served by the exiting thread
     * (sampler_end) takes too: one or the other, and after that exit
     * there is nothing to set up. */
    pthread_mutex_lock(&tick_lock);
    if (served_elsewhere) {
        pthread_mutex_unlock(&tick_lock);
        for (;;)
            pause();
    }
    if (own_fd_table_private() != 0)
        pp_log(1, "no private fd table (%s); the profile is opened for each "
                  "write", strerror(errno));
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, PP_TIMER_SIG);
    writer_init();
    pyvm_on_reject(on_reject);
    control_open();
    last_flush_ns = mono_ns();
    int spin = may_spin(), timer_err = 0;
    timer_t timer;
    if (!spin && make_timer(&timer) != 0)
        timer_err = errno ? errno : EINVAL;
    pthread_mutex_unlock(&tick_lock);
    if (spin) {
        spin_loop(&set);
        running = 0;
        ack();
        return leave();
    }
    if (timer_err) {
        if (python_starts(&set))
            pp_not_profiled("timer_create: %s", strerror(timer_err));
        running = 0;
        wake_waiters();
        return leave();
    }
    /* The timer's expiries, for count_late and for overruns that came
     * before the file's start. */
    start_deadlines();
    for (;;) {
        siginfo_t si;
        pause_while_asked(&timer);
        /* An end posted before this thread named itself came with no kick
         * (sampler_end): a child that exits or execs at once must not wait
         * for the first tick. */
        if (atomic_load(&request) == REQ_FINISH) {
            count_late();
            serve_request();
            break;
        }
        if (take_signal(&set, &si, NULL) < 0)
            continue;
        if (atomic_load(&request) == REQ_FINISH) {
            count_late();
            serve_request();
            break;
        }
        if (si.si_code == SI_TIMER &&
            pp_timer_is_ours((uintptr_t)si.si_value.sival_ptr)) {
            /* The expiries the signal stands for: the latest is this
             * tick, the overruns before it are missed ones. */
            tick((uint64_t)(si.si_overrun > 0 ? si.si_overrun : 0));
            apart_tick(!pinned);
            if (++phase_ticks >= PHASE_TICKS) {
                phase_ticks = 0;
                shift_phase(&timer);
            }
        } else {
            other_signal(&si);
        }
    }
    timer_delete(timer);
    running = 0;
    ack();
    return leave();
}

/* The thread's stack: a mapping of ours, made at the image's first start,
 * reused by a fork child's first start, where no thread is on it.  So a
 * child's start runs the C library's code for a given stack, as its
 * parent's did, not the code that reuses a cached one, whose first call
 * in the process binds a symbol lazily (a walk of every loaded object's
 * tables: page faults).  An ordinary private mapping, not image_mem's:
 * the C library keeps the thread's descriptor at its top and walks its
 * lists of threads in a fork child (glibc 2.41 crashed on a zero-filled
 * one).  A restart in the same image (after a failed exec) takes the C
 * library's stack: the thread that ended may still be on ours. */
#define STACK_SIZE (256u << 10)
PP_CHILD_WRITES static int own_stack_used;       /* a thread of this image started on it */

/* The attributes of a start on our stack, detached, unpinned and pinned
 * (beside_forker): made once, at the image's first start, and copied by
 * fork with the stack they name, so that a fork child's start calls none
 * of the C library's attribute functions but the pin's, which then
 * reuses the parent's buffer for the CPU set instead of allocating one:
 * each such call, and malloc's walk of its free lists, is pages of code
 * and data that a child that exits at once would fault in (pyprof(7),
 * "Timing and cost").  A restart in the same image gets attributes of
 * its own, for the C library's stack. */
static pthread_attr_t own_attr, own_pinned_attr;
static int own_attr_ready;

/* *attr made for a detached start on the STACK_SIZE bytes at stack. */
static int stack_attr(pthread_attr_t *attr, char *stack)
{
    if (pthread_attr_init(attr) != 0)
        return 0;
    if (pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED) == 0 &&
        pthread_attr_setstack(attr, stack, STACK_SIZE) == 0)
        return 1;
    pthread_attr_destroy(attr);
    return 0;
}

static int own_stack_attrs(void)
{
    if (own_attr_ready)
        return 1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (!page || page > 65536)
        return 0;
    char *m = mmap(NULL, page + STACK_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return 0;
    cpu_set_t any;
    memset(&any, 0xff, sizeof any);
    if (mprotect(m, page, PROT_NONE) == 0 && stack_attr(&own_attr, m + page)) {
        if (stack_attr(&own_pinned_attr, m + page)) {
            if (pthread_attr_setaffinity_np(&own_pinned_attr, sizeof any, &any) == 0) {
                own_attr_ready = 1;
                return 1;
            }
            pthread_attr_destroy(&own_pinned_attr);
        }
        pthread_attr_destroy(&own_attr);
    }
    munmap(m, page + STACK_SIZE);
    return 0;
}

/* The sampler's signal mask: all blocked but the synchronous faults,
 * which must stay deliverable (a blocked SIGSEGV on a fault kills the
 * process instead of reaching the guard).  Made once, as own_attr. */
static sigset_t sampler_mask;
static int sampler_mask_ready;

static const sigset_t *mask_for_sampler(void)
{
    if (!sampler_mask_ready) {
        sigfillset(&sampler_mask);
        sigdelset(&sampler_mask, SIGSEGV);
        sigdelset(&sampler_mask, SIGBUS);
        sigdelset(&sampler_mask, SIGFPE);
        sigdelset(&sampler_mask, SIGILL);
        sigdelset(&sampler_mask, SIGTRAP);
        sampler_mask_ready = 1;
    }
    return &sampler_mask;
}

int sampler_start(void)
{
    sigset_t old;
    pthread_sigmask(SIG_SETMASK, mask_for_sampler(), &old);
    atomic_store(&request, REQ_NONE);
    atomic_store(&acked, 0);
    served_elsewhere = 0;
    /* Until the new thread names itself: no kick may go to an old tid,
     * which another thread of the program may have by now. */
    atomic_store(&sampler_tid, 0);
    running = 1;
    pthread_attr_t restart_attr, *attr = &restart_attr;
    if (!own_stack_used && own_stack_attrs()) {
        attr = &own_attr;
        int cpu = beside_forker();
        if (cpu >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (pthread_attr_setaffinity_np(&own_pinned_attr, sizeof one, &one) == 0)
                attr = &own_pinned_attr;
        }
    } else {
        pthread_attr_init(attr);
        pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(attr, STACK_SIZE);
    }
    pinned = attr == &own_pinned_attr;
    uncounted_prepare();
    int r = pthread_create(&thread, attr, sampler_main, NULL);
    if (r == EINVAL && pinned) {
        /* The CPU was taken from the process meanwhile (a cpuset's
         * change): start where the C library would have. */
        pinned = 0;
        attr = &own_attr;
        r = pthread_create(&thread, attr, sampler_main, NULL);
    }
    if (r == 0) {
        uncounted_sampler();
        if (attr != &restart_attr)
            own_stack_used = 1;
    } else {
        uncounted_cancel();
    }
    if (attr == &restart_attr)
        pthread_attr_destroy(attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        running = 0;
        pp_not_profiled("cannot start the sampler thread: %s", strerror(r));
        return -1;
    }
    return 0;
}

int sampler_on_this_thread(void)
{
    pid_t t = atomic_load(&sampler_tid);
    return t && t == gettid_raw();
}

int sampler_alive(void) { return atomic_load(&running) != 0; }

int sampler_hold_unopened(void)
{
    for (int i = 0; i < 100; i++) {
        if (pthread_mutex_trylock(&tick_lock) == 0) {
            if (file_open == 0 || (file_open > 0 && writer_deferred()))
                return 1;
            pthread_mutex_unlock(&tick_lock);
            return 0;
        }
        /* A tick takes microseconds; a lock held for longer is a fork in
         * progress on this thread (a signal handler's exec), or a slow
         * tick, and the exec then takes the way that always works. */
        struct timespec ts = { 0, 10000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

void sampler_release(void) { pthread_mutex_unlock(&tick_lock); }

void sampler_pause(void) { pthread_mutex_lock(&tick_lock); }
void sampler_resume(void) { pthread_mutex_unlock(&tick_lock); }

void sampler_after_fork(void)
{
    own_stack_used = 0;         /* the parent's thread is not in the child */
    served_elsewhere = 0;
    tick_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    running = 0;
    atomic_store(&paused, 0);
    sampler_tid = 0;
    file_open = 0;
    deadlines_live = 0;
    main_gone = 0;
    uncounted_after_fork();
    memset(&counters, 0, sizeof counters);
    threads_stale = !image_mem_wiped();
    threads_used = 0;
    next_thread_idx = 0;
}

/* ------------------------------------------------------------ requests */

void sampler_on_file(void (*fn)(void)) { file_created = fn; }

void sampler_discard_on_end(int discard) { discard_on_finish = discard; }

/* Waits at most 1 ms for acked to leave 0 (a futex: the sampler wakes the
 * waiters as it acks, so an end costs what serving it costs, not a
 * millisecond's sleep). */
static void wait_ack_ms(void)
{
    struct timespec ts = { 0, 1000000L };
    syscall(SYS_futex, (int *)&acked, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/* An exit before the sampler created its file (a fork child that exits
 * at once, or within its spawn window: in_spawn_window): the exiting
 * thread writes the file itself, as serve_request would, and does not
 * wait for the sampler, which the process's end ends wherever it is
 * (still starting, or waiting for a tick).  That saves the two wake-ups
 * of a hand-over (the sampler's, then the exiting thread's: tens of
 * microseconds each on a VM) and the sampler's page faults.  Only with
 * the writer's buffers and compressor there already (a fork child has
 * its parent's): then making the file takes no memory, which an _exit
 * from a signal handler could not, and only tick_lock's trylock; not
 * with a file created (its compressor's state is the sampler's to end:
 * an uncreated one has all its records still in the buffer), nor where
 * the sampler holds the lock (a tick, its set-up). */
static int serve_exit_here(void)
{
    if (pthread_mutex_trylock(&tick_lock) != 0)
        return 0;
    if ((file_open != 0 && !(file_open > 0 && writer_deferred())) ||
        served_elsewhere || !writer_ready()) {
        pthread_mutex_unlock(&tick_lock);
        return 0;
    }
    /* The deadlines since the sampler's last tick got none (pyprof(7),
     * Timing and cost: every deadline is a tick served or missed). */
    count_late_locked();
    end_file();
    served_elsewhere = 1;
    file_open = -1;         /* a tick that was waiting for the lock: idle */
    pthread_mutex_unlock(&tick_lock);
    atomic_store(&request, REQ_FINISH);
    atomic_store(&acked, 1);
    wake_waiters();
    return 1;
}

void sampler_end(int how, int value)
{
    req_how = how;
    req_value = value;
    if (how == PP_END_EXIT && !discard_on_finish && serve_exit_here())
        return;
    atomic_store(&request, REQ_FINISH);
    /* Kicked as soon as it has named itself (before that it looks at the
     * request before it waits: sampler_main), again every 50 ms. */
    pid_t kicked = 0;
    for (int i = 0; i < WAIT_LIMIT_MS && !atomic_load(&acked) && running; i++) {
        pid_t tid = atomic_load(&sampler_tid);
        if (tid && (tid != kicked || i % 50 == 0)) {
            syscall(SYS_tgkill, pp_state.pid, tid, PP_TIMER_SIG);
            kicked = tid;
        }
        /* Asleep on the control page, which a signal does not interrupt:
         * woken there (with every sampler of the tree, each of which
         * looks and sleeps on), and again if it was just going to sleep. */
        if (atomic_load(&paused) && (i == 0 || i % 50 == 0))
            control_wake_all();
        wait_ack_ms();
    }
}

void sampler_wait_ended(void)
{
    for (int i = 0; i < WAIT_LIMIT_MS && !atomic_load(&acked); i++)
        wait_ack_ms();
}

int sampler_ended(void) { return atomic_load(&acked) && !running; }
