/* control_cmd.c — see control_cmd.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pyprof/control.h"
#include "run/control_cmd.h"
#include "window.h"

int control_create(const char *dir, int paused, char *path, size_t cap,
                   struct pp_control **page)
{
    if (snprintf(path, cap, "%s/%s", dir, PP_CONTROL_FILE) >= (int)cap) {
        fprintf(stderr, "pyprof-run: output path too long\n");
        return -1;
    }
    /* 0644: every process of the tree may read it (a worker that dropped
     * its privileges too); its owner and root may write it. */
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    struct pp_control c;
    memset(&c, 0, sizeof c);
    c.magic = PP_CONTROL_MAGIC;
    c.version = PP_CONTROL_VERSION;
    c.state = paused ? PP_CONTROL_PAUSED : PP_CONTROL_SAMPLING;
    void *m = MAP_FAILED;
    if (fd < 0 || ftruncate(fd, PP_CONTROL_SIZE) != 0 ||
        pwrite(fd, &c, sizeof c, 0) != (ssize_t)sizeof c ||
        (page && (m = mmap(NULL, PP_CONTROL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                           fd, 0)) == MAP_FAILED)) {
        fprintf(stderr, "pyprof-run: %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (page)
        *page = m;
    close(fd);
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int control_command(const char *dir, char **args, int nargs)
{
    char path[PATH_MAX + 16], why[256];
    uint64_t for_ns = 0;
    int mark = nargs == 2 && !strcmp(args[0], "mark");
    if (nargs < 1 || (strcmp(args[0], "start") && strcmp(args[0], "stop") && !mark) ||
        (nargs != 1 && !mark && !(nargs == 3 && !strcmp(args[0], "start") &&
                                  !strcmp(args[1], "--for")))) {
        fprintf(stderr, "pyprof-run: --control DIR start [--for DURATION] | stop | "
                        "mark TEXT\n");
        return 2;
    }
    if (mark && strlen(args[1]) >= PP_CONTROL_MARK_TEXT) {
        fprintf(stderr, "pyprof-run: a mark is at most %d bytes\n",
                PP_CONTROL_MARK_TEXT - 1);
        return 2;
    }
    if (nargs == 3 && window_duration(args[2], &for_ns, why, sizeof why) != 0) {
        fprintf(stderr, "pyprof-run: --for: %s\n", why);
        return 2;
    }
    snprintf(path, sizeof path, "%s/%s", dir, PP_CONTROL_FILE);
    /* Written only by who may write the file: its owner and root; the
     * kernel says no to anyone else. */
    int fd = open(path, O_RDWR | O_CLOEXEC);
    void *p = fd >= 0 ? mmap(NULL, PP_CONTROL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                             fd, 0) : MAP_FAILED;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pyprof-run: %s: %s%s\n", path, strerror(e),
                e == ENOENT ? " (was the tree started with pyprof-run --paused?)" : "");
        return 2;
    }
    struct pp_control *c = p;
    if (c->magic != PP_CONTROL_MAGIC || c->version != PP_CONTROL_VERSION) {
        fprintf(stderr, "pyprof-run: %s is no control page\n", path);
        munmap(p, PP_CONTROL_SIZE);
        return 2;
    }
    uint64_t now = now_ns();
    if (mark) {
        /* Claimed, filled, then published by its seq (pyprof/control.h). */
        uint32_t seq = __atomic_add_fetch(&c->nmarks, 1, __ATOMIC_ACQ_REL);
        struct pp_control_mark *m = &c->marks[(seq - 1) % PP_CONTROL_MARKS];
        __atomic_store_n(&m->seq, 0, __ATOMIC_RELEASE);
        m->at_ns = now;
        m->len = (uint32_t)strlen(args[1]);
        memcpy(m->text, args[1], m->len);
        __atomic_store_n(&m->seq, seq, __ATOMIC_RELEASE);
    } else if (!strcmp(args[0], "start")) {
        __atomic_store_n(&c->until_ns, for_ns ? now + for_ns : 0, __ATOMIC_RELEASE);
        __atomic_store_n(&c->start_ns, now, __ATOMIC_RELEASE);
        __atomic_store_n(&c->stop_ns, 0, __ATOMIC_RELEASE);
        __atomic_add_fetch(&c->window, 1, __ATOMIC_ACQ_REL);
        __atomic_store_n(&c->state, PP_CONTROL_SAMPLING, __ATOMIC_RELEASE);
    } else {
        uint64_t until = __atomic_load_n(&c->until_ns, __ATOMIC_ACQUIRE);
        __atomic_store_n(&c->stop_ns, until && until < now ? until : now, __ATOMIC_RELEASE);
        __atomic_store_n(&c->state, PP_CONTROL_PAUSED, __ATOMIC_RELEASE);
    }
    /* Every sampler of the tree sleeps on this word (not a private
     * futex: the file's page is the key). */
    syscall(SYS_futex, &c->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    munmap(p, PP_CONTROL_SIZE);
    return 0;
}
