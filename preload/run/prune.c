/*
 * prune.c — the oldest segments deleted past the bound (prune.h).
 *
 * A look lists the directory's profile files (pyprof/file_name.h).  An
 * image's segments other than its newest have ended: a segment is
 * created only after the one before it was written to its end.  The
 * newest is taken to be written while its pid lives.  With --keep, an
 * ended segment whose last write (its mtime) is older than the bound
 * goes.  With --max-size, ended segments go, oldest last write first,
 * until those left and the open ones fit with room for each open one to
 * grow to its segment size: the processes cut at that size, which the
 * control page gives them as half the bound shared among the processes
 * writing, so that the open segments alone always fit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pyprof/control.h"
#include "pyprof/file_name.h"
#include "run/prune.h"

#define MIN_SEGMENT   (16u << 10)
#define MAX_SEGMENT   (64ull << 20)
#define MIN_SECONDS   1u
#define MAX_SECONDS   600u

int prune_parse_size(const char *s, uint64_t *bytes, char *err, size_t cap)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    uint64_t unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1ull << 10; end++; break;
    case 'm': case 'M': unit = 1ull << 20; end++; break;
    case 'g': case 'G': unit = 1ull << 30; end++; break;
    case 't': case 'T': unit = 1ull << 40; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (end == s || *end || errno || !(v > 0) || v * (double)unit > 1e18) {
        snprintf(err, cap, "expected a size such as 500M, 2G or 64K");
        return -1;
    }
    *bytes = (uint64_t)(v * (double)unit);
    if (*bytes < 4 * MIN_SEGMENT) {
        snprintf(err, cap, "at least %uK: a bound smaller than four segments "
                 "of the smallest size cannot hold a running tree", 4 * MIN_SEGMENT >> 10);
        return -1;
    }
    return 0;
}

unsigned prune_segment_seconds(const struct prune_bound *b)
{
    if (!b->keep_ns)
        return 0;
    /* about eight segments in what is kept: what is deleted is at most
     * an eighth more than the bound asks */
    uint64_t s = b->keep_ns / 8 / 1000000000ull;
    return s < MIN_SECONDS ? MIN_SECONDS : s > MAX_SECONDS ? MAX_SECONDS : (unsigned)s;
}

static uint64_t segment_size(const struct prune_bound *b, uint64_t writers)
{
    uint64_t s = b->max_bytes / 2 / (writers > 4 ? writers : 4);
    return s < MIN_SEGMENT ? MIN_SEGMENT : s > MAX_SEGMENT ? MAX_SEGMENT : s;
}

unsigned prune_segment_kb(const struct prune_bound *b)
{
    if (!b->max_bytes)
        return 0;
    return (unsigned)(segment_size(b, 4) >> 10);
}

struct seg {
    char *name;
    size_t key_len;
    uint32_t seq;
    uint64_t bytes, mtime_ns;
    long pid;
    int segment, open, gone;
};

static int cmp_image(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    int c = memcmp(x->name, y->name, x->key_len);
    if (c)
        return c;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_age(const void *a, const void *b)
{
    const struct seg *x = *(const struct seg *const *)a, *y = *(const struct seg *const *)b;
    return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
}

static int alive(long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void drop(int dfd, struct seg *s, struct prune_stats *st)
{
    if (unlinkat(dfd, s->name, 0) == 0 || errno == ENOENT) {
        st->deleted++;
        st->deleted_bytes += s->bytes;
    }
    s->gone = 1;
}

void prune_dir(const char *dir, const struct prune_bound *b, struct pp_control *page,
               struct prune_stats *st)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct seg *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct pp_file_name fn;
        struct stat sb;
        if (!pp_file_name_parse(e->d_name, &fn) ||
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            struct seg *g = realloc(v, cap * sizeof *v);
            if (!g)
                break;
            v = g;
        }
        char *name = strdup(e->d_name);
        if (!name)
            break;
        v[n++] = (struct seg){
            .name = name, .key_len = fn.image_end, .seq = fn.seq,
            .bytes = (uint64_t)sb.st_size, .pid = fn.pid, .segment = fn.segment,
            .mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull +
                        (uint64_t)sb.st_mtim.tv_nsec };
    }
    qsort(v, n, sizeof *v, cmp_image);
    /* each image's newest: written while its process lives */
    uint64_t total = 0, writers = 0;
    for (size_t i = 0; i < n; i++) {
        int newest = i + 1 == n || v[i + 1].key_len != v[i].key_len ||
                     memcmp(v[i].name, v[i + 1].name, v[i].key_len);
        v[i].open = !v[i].segment || (newest && alive(v[i].pid));
        writers += v[i].segment && v[i].open;
        total += v[i].bytes;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    struct seg **ended = calloc(n ? n : 1, sizeof *ended);
    size_t nended = 0;
    for (size_t i = 0; ended && i < n; i++)
        if (v[i].segment && !v[i].open)
            ended[nended++] = &v[i];
    if (ended)
        qsort(ended, nended, sizeof *ended, cmp_age);
    for (size_t i = 0; b->keep_ns && i < nended; i++)
        if (ended[i]->mtime_ns + b->keep_ns < now_ns) {
            total -= ended[i]->bytes;
            drop(dirfd(d), ended[i], st);
        }
    if (b->max_bytes) {
        uint64_t seg = segment_size(b, writers);
        if (page)
            __atomic_store_n(&page->segment_bytes, seg, __ATOMIC_RELEASE);
        /* the room the open ones may still take before they end */
        uint64_t room = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].segment && v[i].open) {
                uint64_t full = seg + seg / 4;
                room += full > v[i].bytes ? full - v[i].bytes : 0;
            }
        for (size_t i = 0; i < nended && total + room > b->max_bytes; i++)
            if (!ended[i]->gone) {
                total -= ended[i]->bytes;
                drop(dirfd(d), ended[i], st);
            }
        if (total + room > b->max_bytes)
            st->over_looks++;
    }
    st->last_bytes = total;
    st->last_files = 0;
    for (size_t i = 0; i < n; i++)
        st->last_files += !v[i].gone;
    if (total > st->peak_bytes)
        st->peak_bytes = total;
    free(ended);
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    closedir(d);
}
