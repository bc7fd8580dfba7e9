/*
 * test_own_threads.c — a thread of the library's own, as the sampler is:
 * left out of glibc's thread count, a process whose other threads all end
 * without exit() still ends by glibc's exit(0) (atexit handlers run); and
 * with its private fd table, its fds are not the process's, nor the
 * process's its.
 *
 * Each case runs in a fork child, which the test waits for with a bound.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/own_fd.h"
#include "pyprof/format.h"
#include "base/identity.h"
#include "base/uncounted.h"
#include "record/writer.h"

/* Waits for pid at most 20 s; kills it after that.  Returns the status,
 * or -1 if it had to be killed. */
static int wait_bounded(pid_t pid)
{
    for (int i = 0; i < 2000; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        struct timespec ms = { 0, 10000000 };
        nanosleep(&ms, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void *forever(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static int exit_pipe = -1;

static void at_exit_note(void)
{
    if (write(exit_pipe, "x", 1) != 1)
        _exit(9);
}

static void *worker(void *arg)
{
    (void)arg;
    struct timespec t = { 0, 50000000 };
    nanosleep(&t, NULL);
    return NULL;
}

Test(own_threads, an_uncounted_thread_does_not_keep_a_process_whose_threads_end_without_exit)
{
    int p[2];
    cr_assert(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        exit_pipe = p[1];
        atexit(at_exit_note);
        pthread_t t;
        uncounted_prepare();
        if (pthread_create(&t, NULL, forever, NULL) != 0)
            _exit(7);
        if (uncounted_sampler() != 0)
            _exit(8);
        pthread_create(&t, NULL, worker, NULL);
        pthread_exit(NULL);     /* main first, the worker last */
    }
    close(p[1]);
    int st = wait_bounded(pid);
    char c = 0;
    ssize_t n = read(p[0], &c, 1);
    close(p[0]);
    cr_assert(st != -1, "the process did not end: the uncounted thread kept it");
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, expected exit 0", st);
    cr_expect(n == 1 && c == 'x', "atexit handlers did not run");
}

struct seen { int fd_in_thread, thread_fd_visible; int pipe_fd; int made; };

static void *private_table(void *arg)
{
    struct seen *s = arg;
    if (own_fd_table_private() != 0)
        return NULL;
    s->made = 1;
    /* The process's pipe is not in this table. */
    s->fd_in_thread = fcntl(s->pipe_fd, F_GETFD) != -1;
    /* An fd opened here: tell the main thread its number. */
    return (void *)(intptr_t)open("/dev/null", O_RDONLY | O_CLOEXEC);
}

Test(own_threads, a_private_fd_table_shares_no_fd_with_the_process)
{
    int p[2];
    cr_assert(pipe(p) == 0);
    /* Fill the low numbers, so that the thread's first fd (0 in its empty
     * table) is a number the process does not use either. */
    int hi = fcntl(p[0], F_DUPFD_CLOEXEC, 100);
    cr_assert(hi >= 0);
    struct seen s = { .pipe_fd = hi };
    pthread_t t;
    cr_assert(pthread_create(&t, NULL, private_table, &s) == 0);
    void *ret;
    pthread_join(t, &ret);
    if (!s.made) {
        fprintf(stderr, "SKIP: close_range(CLOSE_RANGE_UNSHARE) refused here\n");
        return;
    }
    int tfd = (int)(intptr_t)ret;
    cr_assert(tfd >= 0, "open in the private table failed");
    cr_expect(!s.fd_in_thread, "the process's fd %d is open in the private table", hi);
    /* The thread's table went with it; had it been shared, /dev/null
     * would be open at tfd here. */
    struct stat a, b;
    int null_here = fstat(tfd, &a) == 0 && stat("/dev/null", &b) == 0 &&
                    a.st_rdev == b.st_rdev && S_ISCHR(a.st_mode);
    cr_expect(!null_here, "the thread's fd %d is in the process's table", tfd);
    cr_expect(own_fd_keep() == 0, "the main thread claims a private table");
    close(hi);
    close(p[0]);
    close(p[1]);
}

/* ------------------------------------------------------------ the writer */

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Writes a small file in the calling thread; the process's fd count seen
 * after creating it, after a flush and after its end. */
struct fd_counts { int made, open, flushed, ended, ok; };

static void *write_small(void *arg)
{
    struct fd_counts *c = arg;
    if (c->made && own_fd_table_private() != 0) {
        c->made = -1;
        return NULL;
    }
    char *argv[] = { "python3", "app.py", NULL };
    struct writer_counters k = { 0 };
    c->ok = writer_open(&(struct writer_image){ .argv = argv, .interval_ns = 10000000,
                                                .py_version = "3.12.1" }) == 0;
    c->open = count_fds();
    writer_flush(&k);
    c->flushed = count_fds();
    writer_end(PP_END_EXIT, 0, &k);
    c->ended = count_fds();
    return NULL;
}

static void writer_setup(void)
{
    static char dir[] = "/tmp/pyprof-unit.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(pp_out_dir(), PATH_MAX, "%s/out", dir);
    pp_config.hz = 100;
    pp_state.pid = getpid();
    pp_state.uid = 0x1234;
}

Test(own_threads, without_a_private_table_the_writer_holds_no_fd_between_writes)
{
    writer_setup();
    int before = count_fds();
    struct fd_counts c = { 0 };
    write_small(&c);
    cr_assert(c.ok, "writer_open failed");
    /* count_fds's own directory fd is counted every time alike. */
    cr_expect(c.open == before && c.flushed == before && c.ended == before,
              "fds: %d before, %d after creating, %d after a flush, %d after "
              "the end", before, c.open, c.flushed, c.ended);
    writer_discard();
}

Test(own_threads, a_private_table_keeps_the_writers_fd_out_of_the_process)
{
    writer_setup();
    int before = count_fds();
    struct fd_counts c = { .made = 1 };
    pthread_t t;
    cr_assert(pthread_create(&t, NULL, write_small, &c) == 0);
    pthread_join(t, NULL);
    if (c.made < 0) {
        fprintf(stderr, "SKIP: close_range(CLOSE_RANGE_UNSHARE) refused here\n");
        return;
    }
    cr_assert(c.ok, "writer_open failed");
    /* /proc/self/fd is the process's table, whichever thread reads it;
     * the directory fd of the thread's listing is in the thread's table,
     * the main thread's was counted in `before`. */
    before--;
    cr_expect(c.open == before && c.flushed == before && c.ended == before,
              "fds: %d before, %d after creating, %d after a flush, %d after "
              "the end", before, c.open, c.flushed, c.ended);
    writer_discard();
}
