/*
 * live_view.c — pyprof-merge --live DIR: a terminal view of a tree being
 * profiled, read from its files about once a second (live.h).  Keys and
 * columns: pyprof-merge(1), LIVE VIEW.
 */
#include <curses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"

#define RECENT_S 5.0
#define POLL_MS 1000
#define MAX_PROCS 512
#define MAX_FUNCS 256
#define MAX_THREADS 256

static volatile sig_atomic_t stop_asked;
static int screen_on;

static void on_signal(int sig)
{
    (void)sig;
    stop_asked = 1;
}

static void leave_screen(void)
{
    if (screen_on) {
        endwin();
        screen_on = 0;
    }
}

struct view {
    struct live *lv;
    const char *dir;
    struct live_query q;
    int paused;
    long picked;             /* process filter: its live_proc.index, -1 all */
    long pick;               /* its row in procs this look, or -1          */
    long thread_pick;        /* thread filter within it, -1 all           */
    uint32_t threads[MAX_THREADS];
    const char *thread_names[MAX_THREADS];
    size_t nthreads;
    struct live_proc procs[MAX_PROCS];
    size_t nprocs, shown_procs;
    struct live_func funcs[MAX_FUNCS];
    size_t nfuncs;
    uint64_t selected;       /* samples the function table's query selects */
    size_t top;              /* function rows at most (--top)             */
    double started;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *mode_name(enum m_mode m)
{
    return m == MODE_CPU ? "cpu" : m == MODE_GIL ? "gil" : "wall";
}

/* One line at row y, cut to the screen's width. */
static void line(int y, int attr, const char *fmt, ...)
{
    if (y >= LINES)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if ((int)strlen(buf) > COLS)
        buf[COLS > 0 ? COLS : 0] = 0;
    attron(attr);
    mvaddstr(y, 0, buf);
    attroff(attr);
}

static void look(struct view *v)
{
    v->nprocs = live_procs(v->lv, v->procs, MAX_PROCS);
    if (v->nprocs > MAX_PROCS)
        v->nprocs = MAX_PROCS;
    v->q.proc = -1;
    v->q.tid = 0;
    v->nthreads = 0;
    /* The rows are ranked anew at each look: the picked process is found
     * by its index, not by where it was. */
    v->pick = -1;
    for (size_t i = 0; v->picked >= 0 && i < v->nprocs; i++)
        if ((long)v->procs[i].index == v->picked)
            v->pick = (long)i;
    if (v->pick < 0)
        v->picked = -1;
    if (v->pick >= 0) {
        v->q.proc = v->procs[v->pick].index;
        v->nthreads = live_threads(v->lv, v->procs[v->pick].index, v->threads,
                                   v->thread_names, MAX_THREADS);
        if (v->nthreads > MAX_THREADS)
            v->nthreads = MAX_THREADS;
        if (v->thread_pick >= (long)v->nthreads)
            v->thread_pick = -1;
        if (v->thread_pick >= 0)
            v->q.tid = v->threads[v->thread_pick];
    } else {
        v->thread_pick = -1;
    }
    v->nfuncs = live_funcs(v->lv, &v->q, v->funcs, MAX_FUNCS, &v->selected);
}

static void draw(struct view *v)
{
    erase();
    int y = 0;
    char filter[160] = "the whole tree";
    if (v->pick >= 0)
        snprintf(filter, sizeof filter, "pid %ld%s%s", v->procs[v->pick].pid,
                 v->thread_pick >= 0 ? ", thread " : "",
                 v->thread_pick >= 0 ? v->thread_names[v->thread_pick] : "");
    /* the directory last: a long one is what the width cuts */
    line(y++, A_BOLD, "pyprof live  mode %s  %s  %s%s  %s", mode_name(v->q.mode),
         v->q.since_start ? "all" : "last 5 s", filter, v->paused ? "  [paused]" : "",
         v->dir);
    size_t running = 0;
    double cpu = 0, rate = 0;
    for (size_t i = 0; i < v->nprocs; i++) {
        running += !v->procs[i].ended;
        cpu += v->procs[i].cpu;
        rate += v->procs[i].samples_per_s;
    }
    line(y++, A_NORMAL, "%zu processes, %zu running; %.0f samples/s; %.2f CPUs; "
         "%.0f s since the view started", v->nprocs, running, rate, cpu,
         now_s() - v->started);
    y++;
    /* Processes: a third of the screen at most, the rest for functions. */
    int room = (LINES - 8) / 3;
    if (room < 3)
        room = 3;
    line(y++, A_REVERSE, "  %-8s %6s %7s %-10s %s", "PID", "CPU%", "SAMP/S", "STATE",
         "COMMAND");
    v->shown_procs = 0;
    for (size_t i = 0; i < v->nprocs && (int)i < room; i++, v->shown_procs++) {
        const struct live_proc *p = &v->procs[i];
        line(y++, (long)i == v->pick ? A_BOLD : A_NORMAL, "%c %-8ld %6.1f %7.0f %-10s %s",
             (long)i == v->pick ? '>' : ' ', p->pid, 100 * p->cpu, p->samples_per_s,
             p->state, p->label);
    }
    if ((int)v->nprocs > room)
        line(y++, A_DIM, "  ... %zu more", v->nprocs - (size_t)room);
    y++;
    line(y++, A_REVERSE, "  %6s %6s %8s %8s  FUNCTION (FILE:LINE), by %s, %llu samples",
         "SELF%", "TOTAL%", "SELF", "TOTAL", v->q.by_total ? "total" : "self",
         (unsigned long long)v->selected);
    double all = v->selected ? (double)v->selected : 1;
    for (size_t i = 0; i < v->nfuncs && i < v->top && y < LINES - 1; i++) {
        const struct live_func *f = &v->funcs[i];
        line(y++, A_NORMAL, "  %5.1f%% %5.1f%% %8llu %8llu  %s (%s:%u)",
             100 * (double)f->self / all, 100 * (double)f->total / all,
             (unsigned long long)f->self, (unsigned long long)f->total, f->name,
             f->file, f->line);
    }
    line(LINES - 1, A_REVERSE, "q quit  w/c/g mode  r recent/all  s sort  p process  "
                               "t thread  space pause");
    refresh();
}

static void key(struct view *v, int ch)
{
    switch (ch) {
    case 'w': v->q.mode = MODE_WALL; break;
    case 'c': v->q.mode = MODE_CPU; break;
    case 'g': v->q.mode = MODE_GIL; break;
    case 'r': v->q.since_start = !v->q.since_start; break;
    case 's': v->q.by_total = !v->q.by_total; break;
    case ' ': v->paused = !v->paused; break;
    case 'p':
        v->picked = v->pick + 1 < (long)v->shown_procs
                    ? (long)v->procs[v->pick + 1].index : -1;
        v->thread_pick = -1;
        break;
    case 't':
        if (v->pick >= 0)
            v->thread_pick = v->thread_pick + 1 < (long)v->nthreads ? v->thread_pick + 1 : -1;
        break;
    default: break;
    }
}

int live_view(const char *dir, size_t top)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fputs("pyprof-merge: --live draws on a terminal: standard input and output "
              "must be one\n", stderr);
        return 2;
    }
    static struct view v;
    v.lv = live_new(dir, RECENT_S);
    v.dir = dir;
    v.top = top;
    v.q = (struct live_query){ .mode = MODE_WALL, .proc = -1 };
    v.picked = v.pick = v.thread_pick = -1;
    v.started = now_s();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    atexit(leave_screen);
    if (!initscr()) {
        fputs("pyprof-merge: --live: cannot set up the terminal\n", stderr);
        return 2;
    }
    screen_on = 1;
    cbreak();
    noecho();
    curs_set(0);
    keypad(stdscr, TRUE);
    timeout(100);
    double next = 0;
    int dirty = 1;
    while (!stop_asked) {
        double t = now_s();
        if (t >= next) {
            live_poll(v.lv);
            next = t + POLL_MS / 1000.0;
            dirty = !v.paused;
        }
        if (dirty) {
            look(&v);
            draw(&v);
            dirty = 0;
        }
        int ch = getch();
        if (ch == 'q' || ch == 'Q')
            break;
        if (ch == KEY_RESIZE) {
            dirty = 1;
        } else if (ch != ERR) {
            key(&v, ch);
            dirty = 1;
        }
    }
    leave_screen();
    live_free(v.lv);
    return 0;
}
