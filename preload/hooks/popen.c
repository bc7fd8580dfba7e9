/*
 * popen.c — popen() and pclose() done here, so that the child gets
 * the profiled environment without the process's own being touched.
 *
 * glibc's popen spawns with the global environ and has no envp to give,
 * and its pclose only knows the streams its own popen made.  So both are
 * done here the way glibc does them: /bin/sh -c COMMAND through
 * posix_spawn, with the pipe's far end on the child's stdin or stdout,
 * the streams of earlier popen() calls closed in the child (POSIX), "e"
 * giving a close-on-exec stream, and pclose waiting for the child and
 * returning its status.  A stream that glibc's popen made (before this
 * library was loaded) is passed on to glibc's pclose.
 *
 * Never called in a vfork child or a signal handler (neither function is
 * async-signal-safe), so the list of open streams is an ordinary locked
 * array; a fork child gets a fresh lock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/identity.h"
#include "hooks/hooks.h"
#include "hooks/spawn_shell.h"
#include "pyprof/format.h"

typedef int (*pclose_fn)(FILE *);

struct stream { FILE *f; pid_t pid; int fd; };

static pclose_fn real_pclose;       /* looked up at the first foreign pclose */
PP_CHILD_WRITES static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream *streams;
static size_t nstreams, streams_cap;

static void popen_after_fork(void);

void hooks_popen_init(void)
{
    pthread_atfork(NULL, NULL, popen_after_fork);
}

/* The child has no other thread that could hold the lock.  An
 * assignment: a fork handler calls nothing that is not
 * async-signal-safe. */
static void popen_after_fork(void)
{
    lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

/* "r" or "w", then optionally "e" (glibc's modes); -1 for anything else. */
static int parse_mode(const char *mode, int *reading, int *cloexec)
{
    if (!mode || (mode[0] != 'r' && mode[0] != 'w'))
        return -1;
    *reading = mode[0] == 'r';
    *cloexec = 0;
    for (const char *m = mode + 1; *m; m++) {
        if (*m != 'e')
            return -1;
        *cloexec = 1;
    }
    return 0;
}

static int remember(FILE *f, pid_t pid, int fd)
{
    if (nstreams == streams_cap) {
        size_t cap = streams_cap ? streams_cap * 2 : 8;
        struct stream *s = realloc(streams, cap * sizeof *s);
        if (!s)
            return -1;
        streams = s;
        streams_cap = cap;
    }
    streams[nstreams++] = (struct stream){ f, pid, fd };
    return 0;
}

PP_EXPORT FILE *popen(const char *cmd, const char *mode)
{
    int reading, cloexec;
    if (!cmd || parse_mode(mode, &reading, &cloexec) != 0) {
        errno = EINVAL;
        return NULL;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return NULL;
    int mine = reading ? fds[0] : fds[1], theirs = reading ? fds[1] : fds[0];
    int target = reading ? STDOUT_FILENO : STDIN_FILENO;

    posix_spawn_file_actions_t fa;
    int err = posix_spawn_file_actions_init(&fa);
    /* dup2 onto itself clears close-on-exec (glibc >= 2.29) */
    if (!err)
        err = posix_spawn_file_actions_adddup2(&fa, theirs, target);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; !err && i < nstreams; i++)
        if (streams[i].fd != target)
            err = posix_spawn_file_actions_addclose(&fa, streams[i].fd);
    pid_t pid = -1;
    if (!err)
        err = spawn_shell(&pid, cmd, &fa, NULL);
    posix_spawn_file_actions_destroy(&fa);
    close(theirs);
    FILE *f = NULL;
    if (!err) {
        if (!cloexec)
            fcntl(mine, F_SETFD, 0);
        f = fdopen(mine, reading ? "r" : "w");
        if (!f) {
            err = errno ? errno : ENOMEM;
            close(mine);
        } else if (remember(f, pid, mine) != 0) {
            err = ENOMEM;
            fclose(f);
            f = NULL;
        }
    } else {
        close(mine);
    }
    pthread_mutex_unlock(&lock);
    if (!f) {
        /* a command that did start runs on without its pipe: reap it */
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        errno = err;
        return NULL;
    }
    return f;
}

PP_EXPORT int pclose(FILE *f)
{
    pid_t pid = -1;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nstreams; i++)
        if (streams[i].f == f) {
            pid = streams[i].pid;
            streams[i] = streams[--nstreams];
            break;
        }
    pthread_mutex_unlock(&lock);
    if (pid < 0) {
        if (!real_pclose)
            real_pclose = (pclose_fn)dlsym(RTLD_NEXT, "pclose");
        return real_pclose ? real_pclose(f) : -1;
    }
    fclose(f);
    int status;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    return r < 0 ? -1 : status;
}
