/*
 * live.h — the picture of a tree while it is being profiled (pyprof-merge
 * --live): every profile of a directory followed as it is written
 * (reader.h, rd_follow), each sample kept for the last few seconds and
 * counted by stack since the start; each look ranks the processes and the
 * hottest functions, over the recent seconds or since the start, in one
 * mode, for the tree, one process or one thread.
 */
#ifndef PYPROF_MERGE_LIVE_H
#define PYPROF_MERGE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct live;

/* A picture of dir's profiles, keeping recent_s seconds of samples. */
struct live *live_new(const char *dir, double recent_s);
void live_free(struct live *lv);

/* Follows the files that appeared since the last poll and reads what every
 * file gained; returns the samples read. */
uint64_t live_poll(struct live *lv);

/* The newest tick read, on its files' clock (ns since the epoch); 0 before
 * any. */
uint64_t live_now(const struct live *lv);

struct live_proc {
    long pid;
    uint32_t index;          /* for live_query.proc                      */
    char label[128];         /* what it runs (pyprof-merge(1), labels)  */
    double samples_per_s;    /* wall samples a second, recently          */
    double cpu;              /* CPUs used recently (1.0: one whole CPU)  */
    uint64_t samples;        /* since its start, every mode's            */
    char state[32];          /* running, exit 0, signal 9, exec, damaged */
    int ended;
};

/* The processes, running ones first, then by recent CPU; returns how
 * many there are (rows gets at most cap). */
size_t live_procs(const struct live *lv, struct live_proc *rows, size_t cap);

/* The threads of process index (live_proc.index): tids and names. */
size_t live_threads(const struct live *lv, uint32_t proc, uint32_t *tids,
                    const char **names, size_t cap);

struct live_query {
    enum m_mode mode;        /* MODE_WALL, MODE_CPU or MODE_GIL          */
    int since_start;         /* 0: the recent seconds                    */
    long proc;               /* -1: every process; else live_proc.index  */
    uint32_t tid;            /* 0: every thread of it                    */
    int by_total;            /* rank by total instead of self            */
};

struct live_func {
    const char *name, *file;
    uint32_t line;
    uint64_t self, total;
};

/* The hottest functions for q: at most cap rows; *samples gets the
 * samples q selects (the shares' denominator).  Returns the rows. */
size_t live_funcs(const struct live *lv, const struct live_query *q,
                  struct live_func *rows, size_t cap, uint64_t *samples);

/* The terminal view of dir (live_view.c), with at most top rows of
 * functions: runs until its user quits (q, or SIGINT, SIGTERM, SIGHUP);
 * 0, or 2 without a terminal. */
int live_view(const char *dir, size_t top);

#endif
