/* control.c — see control.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "pyprof/control.h"
#include "sample/control.h"

static struct pp_control *page;     /* shared, read-only; inherited by fork */

int control_open(void)
{
    if (page)
        return 1;
    if (!pp_config.control[0])
        return 0;
    int fd = open(pp_config.control, O_RDONLY | O_CLOEXEC);
    void *p = fd >= 0 ? mmap(NULL, PP_CONTROL_SIZE, PROT_READ, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        pp_log(1, "%s %s: %s; sampling as if it were not given", PP_ENV_CONTROL,
               pp_config.control, strerror(e));
        return 0;
    }
    const struct pp_control *c = p;
    if (c->magic != PP_CONTROL_MAGIC || c->version != PP_CONTROL_VERSION) {
        munmap(p, PP_CONTROL_SIZE);
        pp_log(1, "%s %s is no control page; sampling as if it were not given",
               PP_ENV_CONTROL, pp_config.control);
        return 0;
    }
    page = p;
    return 1;
}

/* The state word as last read by control_sampling: what control_wait
 * sleeps on, so that a change made between the two is not slept through
 * (the futex then returns at once). */
static uint32_t seen;

int control_sampling(void)
{
    if (!page)
        return 1;
    seen = __atomic_load_n(&page->state, __ATOMIC_ACQUIRE);
    if (seen != PP_CONTROL_SAMPLING)
        return 0;
    uint64_t until = __atomic_load_n(&page->until_ns, __ATOMIC_ACQUIRE);
    return !until || pp_clock_ns(CLOCK_REALTIME) < until;
}

void control_wait(void)
{
    /* Not FUTEX_PRIVATE: the word is shared with the controller and with
     * every process of the tree, by the file's page. */
    if (page)
        syscall(SYS_futex, &page->state, FUTEX_WAIT, seen, NULL, NULL, 0);
}

void control_wake_all(void)
{
    if (page)
        syscall(SYS_futex, &page->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint32_t control_window(void)
{
    return page ? __atomic_load_n(&page->window, __ATOMIC_ACQUIRE) : 0;
}

uint64_t control_start_ns(void)
{
    return page ? __atomic_load_n(&page->start_ns, __ATOMIC_ACQUIRE) : 0;
}

uint64_t control_segment_bytes(void)
{
    return page ? __atomic_load_n(&page->segment_bytes, __ATOMIC_ACQUIRE) : 0;
}

uint32_t control_next_mark(uint32_t after, uint64_t *at_ns, char *text, size_t *len)
{
    if (!page)
        return 0;
    uint32_t last = __atomic_load_n(&page->nmarks, __ATOMIC_ACQUIRE);
    /* older than the ring holds: gone */
    uint32_t seq = last > PP_CONTROL_MARKS && after < last - PP_CONTROL_MARKS
                   ? last - PP_CONTROL_MARKS : after;
    while (++seq <= last) {
        const struct pp_control_mark *m = &page->marks[(seq - 1) % PP_CONTROL_MARKS];
        if (__atomic_load_n(&m->seq, __ATOMIC_ACQUIRE) != seq)
            continue;                   /* not whole yet, or overwritten */
        *at_ns = m->at_ns;
        *len = m->len < PP_CONTROL_MARK_TEXT ? m->len : PP_CONTROL_MARK_TEXT;
        memcpy(text, m->text, *len);
        return seq;
    }
    return 0;
}
