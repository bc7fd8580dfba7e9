/*
 * timeline.c — a process's samples per thread in time order, spooled to
 * one temporary file with no name (timeline.h says why).
 *
 * The second reading stops at the number of samples the first one read:
 * a file still being written (a process that is still running) has more
 * by now, and the timelines must show what the rest of the report counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pyprof/format.h"
#include "timeline.h"

#define TL_BUF      4096u             /* a thread's buffer, and a chunk's most */
#define TL_BUFFERS  (16u << 20)       /* all threads' buffers together          */

static void *grow_array(struct tl_proc *t, void *p, size_t *cap, size_t need,
                        size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (!q) {
        t->failed = 1;
        return NULL;
    }
    memset((char *)q + *cap * elem, 0, (n - *cap) * elem);
    *cap = n;
    return q;
}

static int flush_thread(struct tl_proc *t, struct tl_thread *th)
{
    if (!th->len)
        return 0;
    struct tl_chunk *c = grow_array(t, th->chunks, &th->chunks_cap, th->nchunks + 1,
                                    sizeof *c);
    if (!c)
        return -1;
    th->chunks = c;
    size_t done = 0;
    while (done < th->len) {
        ssize_t w = pwrite(t->fd, th->buf + done, th->len - done,
                           (off_t)(t->spooled + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            t->failed = 1;
            return -1;
        }
        done += (size_t)w;
    }
    c[th->nchunks++] = (struct tl_chunk){ t->spooled, th->len };
    t->spooled += th->len;
    th->len = 0;
    return 0;
}

/* Every buffer to the spool and freed: when there are too many of them,
 * and at the end. */
static void flush_all(struct tl_proc *t)
{
    for (size_t i = 0; i < t->nthreads; i++) {
        flush_thread(t, &t->threads[i]);
        free(t->threads[i].buf);
        t->threads[i].buf = NULL;
    }
    t->buffers = 0;
}

static void emit(struct tl_proc *t, struct tl_thread *th, uint32_t leaf, uint64_t dur)
{
    if (t->failed)
        return;
    if (!th->buf) {
        if ((t->buffers + 1) * TL_BUF > TL_BUFFERS)
            flush_all(t);
        if (!(th->buf = malloc(TL_BUF))) {
            t->failed = 1;
            return;
        }
        t->buffers++;
    }
    if (th->len + 20 > TL_BUF && flush_thread(t, th) != 0)
        return;
    th->len += (uint32_t)pp_put_varint(th->buf + th->len, leaf);
    th->len += (uint32_t)pp_put_varint(th->buf + th->len, dur);
    th->events++;
    th->samples += leaf != 0;
    th->end += dur;
}

/* The samples of the last tick end where this one begins. */
static void close_pending(struct tl_proc *t, uint64_t now)
{
    for (size_t i = 0; i < t->npending; i++) {
        struct tl_thread *th = &t->threads[t->pending[i]];
        if (th->pending)
            emit(t, th, th->pending_leaf, now > th->end ? now - th->end : 0);
        th->pending = 0;
    }
    t->npending = 0;
}

static void on_tick(void *arg, const struct rd_file *f, uint64_t now)
{
    (void)f;
    struct tl_proc *t = arg;
    if (t->stopped)
        return;
    close_pending(t, now);
    t->now = now;
    if (t->seen >= t->limit)
        t->stopped = 1;
}

static void on_sample(void *arg, const struct rd_file *f, uint32_t thread,
                      uint32_t leaf, uint8_t flags)
{
    struct tl_proc *t = arg;
    if (t->stopped || t->failed || t->seen >= t->limit)
        return;
    t->seen++;
    const struct m_proc *p = &t->m->procs[t->proc];
    /* what the model counted for this thread, no more */
    if (!leaf || thread >= p->nthreads || !model_keeps(&t->m->opt, flags))
        return;
    if (thread >= t->nthreads) {
        size_t cap = t->nthreads;
        struct tl_thread *n = grow_array(t, t->threads, &cap, f->nthreads,
                                         sizeof *n);
        if (!n)
            return;
        t->threads = n;
        t->nthreads = cap;
    }
    struct tl_thread *th = &t->threads[thread];
    if (th->pending)            /* twice in one tick: only a forged file */
        emit(t, th, th->pending_leaf, 0);
    else {
        uint32_t *q = grow_array(t, t->pending, &t->pending_cap, t->npending + 1,
                                 sizeof *q);
        if (!q)
            return;
        t->pending = q;
        q[t->npending++] = thread;
    }
    if (!th->any) {
        th->any = 1;
        th->start = th->end = t->now;
    } else if (th->end < t->now) {
        emit(t, th, 0, t->now - th->end);
    }
    th->pending = 1;
    /* node ids stay below 2^31: the reader caps a file's nodes far lower */
    th->pending_leaf = leaf | (flags & PP_SAMPLE_TRUNCATED ? TL_CUT : 0);
}

/* More CPU-mode samples of the tick's sample of thread: events of no
 * duration, so that every thread's events still tile its time.  At most
 * what the first reading counted, and a bound on what a file can make of
 * a few bytes (4 per tick entry, plus 4,096). */
static void on_cpu_extra(void *arg, const struct rd_file *f, uint32_t thread,
                         uint32_t leaf, uint8_t flags, uint64_t count)
{
    (void)f;
    struct tl_proc *t = arg;
    if (t->stopped || t->failed || thread >= t->nthreads ||
        !t->threads[thread].pending || !model_keeps(&t->m->opt, flags))
        return;
    struct tl_thread *th = &t->threads[thread];
    uint32_t l = leaf | (flags & PP_SAMPLE_TRUNCATED ? TL_CUT : 0);
    for (; count && t->extra_left; count--, t->extra_left--)
        emit(t, th, l, 0);
}

/* The spool: in $TMPDIR (or /tmp), which *dir names for messages. */
static int spool_fd(const char **dir)
{
    const char *d = getenv("TMPDIR");
    *dir = d && *d ? d : "/tmp";
    /* Never named, where the file system allows it; else named for the
     * moment between mkostemp and unlink, mode 0600. */
    int fd = open(*dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/pyprof-merge.XXXXXX", *dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

struct tl_proc *tl_read(const struct model *m, size_t proc)
{
    const struct m_proc *p = &m->procs[proc];
    struct tl_proc *t = calloc(1, sizeof *t);
    if (!t) {
        fputs("pyprof-merge: out of memory\n", stderr);
        return NULL;
    }
    t->m = m;
    t->proc = proc;
    t->limit = p->f->samples;
    t->extra_left = p->f->cpu_extra < 4 * p->f->samples + 4096 ?
                    p->f->cpu_extra : 4 * p->f->samples + 4096;
    /* pending tasks: a tick looks at 64 at most, each standing for the
     * ticks between two looks at its place in the list */
    t->extra_left += p->f->task_waits < 1024 * p->f->samples + 4096 ?
                     p->f->task_waits : 1024 * p->f->samples + 4096;
    const char *dir;
    t->fd = spool_fd(&dir);
    if (t->fd < 0) {
        fprintf(stderr, "pyprof-merge: cannot make a temporary file in %s "
                        "($TMPDIR): %s\n", dir, strerror(errno));
        free(t);
        return NULL;
    }
    struct rd_sink sink = { on_tick, on_sample, t, on_cpu_extra };
    t->f = p->f->seg_paths ? rd_stream_chain(p->f->seg_paths, p->f->nsegs, &sink, &p->win)
                           : rd_stream_window(p->f->path, &sink, &p->win);
    if (t->f && !t->failed) {
        uint64_t iv = p->f->interval_ns ? p->f->interval_ns : 10000000;
        close_pending(t, t->now + iv);
        flush_all(t);
    }
    if (!t->f || t->failed) {
        fprintf(stderr, "pyprof-merge: %s: cannot read the samples again in time "
                        "order (%s)\n", p->f->path,
                !t->f ? "out of memory" : "temporary file not writable");
        tl_free(t);
        return NULL;
    }
    /* The file was cut or replaced since the first reading: everything
     * read is shown, and the difference named. */
    if (t->seen < t->limit)
        fprintf(stderr, "pyprof-merge: %s: read %llu of its %llu samples the second "
                        "time (%s)\n", p->f->path, (unsigned long long)t->seen,
                (unsigned long long)t->limit, t->f->problem ? t->f->problem : "changed");
    return t;
}

void tl_free(struct tl_proc *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nthreads; i++) {
        free(t->threads[i].buf);
        free(t->threads[i].chunks);
    }
    free(t->threads);
    free(t->pending);
    if (t->fd >= 0)
        close(t->fd);
    rd_free(t->f);
    free(t);
}

void tl_iter_start(const struct tl_proc *t, size_t thread, struct tl_iter *it)
{
    it->t = t;
    it->th = thread < t->nthreads ? &t->threads[thread] : NULL;
    it->chunk = 0;
    it->len = it->pos = 0;
    it->at = it->th ? it->th->start : 0;
    it->failed = 0;
}

struct tl_iter *tl_iter_new(const struct tl_proc *t, size_t thread)
{
    struct tl_iter *it = malloc(sizeof *it);
    if (it)
        tl_iter_start(t, thread, it);
    return it;
}

int tl_iter_next(struct tl_iter *it, struct tl_event *e)
{
    if (!it->th || it->failed)
        return 0;
    if (it->pos == it->len) {
        if (it->chunk == it->th->nchunks)
            return 0;
        const struct tl_chunk *c = &it->th->chunks[it->chunk++];
        ssize_t r = pread(it->t->fd, it->buf, c->len, (off_t)c->off);
        if (r != (ssize_t)c->len) {
            it->failed = 1;
            return 0;
        }
        it->len = c->len;
        it->pos = 0;
    }
    const uint8_t *q = it->buf + it->pos, *end = it->buf + it->len;
    uint64_t leaf, dur;
    if (pp_get_varint(&q, end, &leaf) != 0 || pp_get_varint(&q, end, &dur) != 0) {
        it->failed = 1;
        return 0;
    }
    it->pos = (uint32_t)(q - it->buf);
    *e = (struct tl_event){ (uint32_t)leaf, it->at, dur };
    it->at += dur;
    return 1;
}

uint64_t tl_proc_offset(const struct model *m, size_t proc)
{
    /* From its host's first start: another host's clock is another clock
     * (pyprof(7), "Many hosts"); one host's first start is its earliest. */
    const struct m_proc *p = &m->procs[proc];
    uint64_t first = m->nhosts ? m->host_first_ns[p->host] : m->procs[0].f->start_ns;
    return p->f->start_ns > first ? p->f->start_ns - first : 0;
}
