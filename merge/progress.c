/*
 * progress.c — a thread that redraws one line of stderr four times a
 * second.  The line is erased when the merge ends, so that a report
 * written to the same terminal starts clean.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

struct progress {
    struct m_progress *pr;
    size_t nfiles;
    double delay_s;
    struct timespec start;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stop, drawn;
};

static double since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void draw(struct progress *p)
{
    fprintf(stderr, "\rpyprof-merge: %zu/%zu files, %llu samples, %.1f MB read\033[K",
            atomic_load(&p->pr->files), p->nfiles,
            (unsigned long long)atomic_load(&p->pr->samples),
            (double)atomic_load(&p->pr->bytes) / 1e6);
    fflush(stderr);
    p->drawn = 1;
}

static void *progress_main(void *arg)
{
    struct progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        if (since(&p->start) >= p->delay_s)
            draw(p);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &until);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

struct progress *progress_start(struct m_progress *pr, size_t nfiles, double delay_s)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    struct progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    *p = (struct progress){ .pr = pr, .nfiles = nfiles, .delay_s = delay_s };
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    if (pthread_create(&p->thread, NULL, progress_main, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

void progress_stop(struct progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->drawn || since(&p->start) >= p->delay_s) {
        draw(p);
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    free(p);
}
