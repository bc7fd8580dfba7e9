/*
 * pp-waker — the platform's floor under the sampler: what merely waking a
 * thread R times a second costs on this machine, with no stack read and no
 * file.  Figures 1 and 3 print it beside pyprof's own numbers so that a
 * reader can tell pyprof's cost from the machine's.
 *
 *     pp-waker sleep HZ SECONDS   a thread woken by a SIGEV_THREAD_ID timer
 *                                 signal and sigwaitinfo, exactly as the
 *                                 sampler below 20 kHz, doing nothing
 *     pp-waker poll HZ SECONDS    a thread polling the monotonic clock for
 *                                 deadlines, as the sampler above 20 kHz,
 *                                 beside one busy thread (figure 3's load)
 *     pp-waker clock N SECONDS    the CPU clock of N sleeping threads read
 *                                 by their tid, in turn, for SECONDS: the
 *                                 one system call the sampler makes for
 *                                 every thread it samples (its on-CPU
 *                                 flag; pyprof(7), "Timing and cost")
 *
 * Prints "wakes N", "missed M" and "cpu_ns C" lines (missed: deadlines
 * passed unserved; cpu_ns: the waking thread's CPU time); clock prints
 * "reads N" and "cpu_ns C" (the reading thread's CPU time).  Runs in its
 * own process, so it never shares a cache line with the program whose
 * slowdown is measured.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/thread_cpu.h"
#include "pp-tick.h"

static _Atomic int stop;
static uint64_t iv_ns, wakes, missed, cpu_ns;
static int polling;

static uint64_t now_ns(clockid_t clk) { return pp_tick_now(clk); }

static void sleep_loop(void)
{
    timer_t t;
    sigset_t set;
    if (pp_tick_arm(iv_ns, &t, &set) != 0) {
        perror("timer_create");
        exit(1);
    }
    while (!atomic_load(&stop)) {
        siginfo_t si;
        if (sigwaitinfo(&set, &si) < 0)
            continue;
        wakes++;
        missed += (uint64_t)(si.si_overrun > 0 ? si.si_overrun : 0);
    }
    timer_delete(t);
}

static void poll_loop(void)
{
    uint64_t next = now_ns(CLOCK_MONOTONIC) + iv_ns;
    while (!atomic_load(&stop)) {
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        if (now < next) {
            __builtin_ia32_pause();
            continue;
        }
        uint64_t late = (now - next) / iv_ns;
        missed += late;
        next += (late + 1) * iv_ns;
        wakes++;
    }
}

static void *waker(void *arg)
{
    (void)arg;
    uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (polling)
        poll_loop();
    else
        sleep_loop();
    cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    return NULL;
}

static void *sleeper(void *arg)
{
    atomic_store((_Atomic int *)arg, (int)syscall(SYS_gettid));
    while (!atomic_load(&stop)) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The sampler's own read of another thread's CPU clock
 * (pp_thread_cpu_ns), repeated over sleeping threads. */
static int clock_mode(long nthreads, double secs)
{
    pthread_t th[64];
    static _Atomic int tids[64];
    if (nthreads < 1 || nthreads > 64) {
        fprintf(stderr, "pp-waker: 1 to 64 threads\n");
        return 2;
    }
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, sleeper, (void *)&tids[i]) != 0) {
            fprintf(stderr, "pp-waker: cannot start thread %ld\n", i);
            return 1;
        }
    for (long i = 0; i < nthreads; i++)
        while (!atomic_load(&tids[i]))
            sched_yield();
    uint64_t reads = 0;
    uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9);
    while (now_ns(CLOCK_MONOTONIC) < end)
        for (int k = 0; k < 100; k++) {
            uint64_t ns;
            if (pp_thread_cpu_ns((uint32_t)atomic_load(&tids[reads % (uint64_t)nthreads]),
                                 &ns) == 0)
                reads++;
        }
    uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    atomic_store(&stop, 1);
    for (long i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("reads %llu\ncpu_ns %llu\n", (unsigned long long)reads,
           (unsigned long long)cpu);
    return 0;
}

static void *busy(void *arg)
{
    volatile uint64_t n = 0;
    (void)arg;
    while (!atomic_load(&stop))
        n++;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "clock") == 0)
        return clock_mode(atol(argv[2]), atof(argv[3]) > 0 ? atof(argv[3]) : 1);
    if (argc != 4 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "poll"))) {
        fprintf(stderr, "usage: pp-waker sleep|poll HZ SECONDS, or clock THREADS SECONDS\n");
        return 2;
    }
    polling = strcmp(argv[1], "poll") == 0;
    long hz = atol(argv[2]);
    double secs = atof(argv[3]);
    if (hz <= 0 || hz > 1000000 || secs <= 0) {
        fprintf(stderr, "pp-waker: bad rate or duration\n");
        return 2;
    }
    iv_ns = 1000000000ULL / (uint64_t)hz;
    /* The timer signal stays blocked in every thread: only sigwaitinfo
     * takes it. */
    pp_tick_block(NULL);
    pthread_t w, b;
    pthread_create(&w, NULL, waker, NULL);
    if (polling)
        pthread_create(&b, NULL, busy, NULL);
    struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
    while (nanosleep(&ts, &ts) != 0)
        ;
    atomic_store(&stop, 1);
    pthread_join(w, NULL);
    if (polling)
        pthread_join(b, NULL);
    printf("wakes %llu\nmissed %llu\ncpu_ns %llu\n", (unsigned long long)wakes,
           (unsigned long long)missed, (unsigned long long)cpu_ns);
    return 0;
}
