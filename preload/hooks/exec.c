/*
 * exec.c — every way glibc starts a program, so that every child
 * gets an environment that keeps it profiled (env_inject.c).
 *
 * glibc calls these from one another without the PLT (execv -> execve,
 * system/popen -> posix_spawn; pyprof(7), Following children), so each
 * entry point is interposed on its own.  The exec hooks may run in a vfork child that
 * shares our memory: stack only, no allocation, no locks.  An exec by the
 * profiled image itself finishes its file first and resumes it if the exec
 * fails.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/identity.h"
#include "hooks/env_inject.h"
#include "hooks/hooks.h"
#include "hooks/spawn_shell.h"
#include "pyprof/format.h"
#include "sample/lifecycle.h"

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

PP_START_WRITES static execve_fn real_execve, real_execvpe;
PP_START_WRITES static execveat_fn real_execveat;
PP_START_WRITES static fexecve_fn real_fexecve;
PP_START_WRITES static spawn_fn real_posix_spawn, real_posix_spawnp;

static void system_after_fork(void);

void hooks_exec_init(void)
{
    pthread_atfork(NULL, NULL, system_after_fork);
    real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
    real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
    real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
    real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
    real_posix_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
    real_posix_spawnp = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
    env_inject_init();
    spawn_shell_init(real_posix_spawn);
}

/* An exec by this image: finish the file, exec with the patched
 * environment `env`, resume the file if the exec returned. */
#define EXEC_AROUND(envp, call)                                              \
    int token = pp_before_exec();                                            \
    PATCHED_ENV(env, envp, PP_START_EXEC);                                   \
    int r = (call);                                                          \
    int saved = errno;                                                       \
    pp_exec_failed(token);                                                   \
    errno = saved;                                                           \
    return r

PP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_AROUND(envp, real_execve(path, argv, env));
}

PP_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

PP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_AROUND(envp, real_execvpe(file, argv, env));
}

PP_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

PP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    EXEC_AROUND(envp, real_fexecve(fd, argv, env));
}

int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
             int flags);
PP_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
                       char *const envp[], int flags)
{
    if (!real_execveat) {
        errno = ENOSYS;
        return -1;
    }
    EXEC_AROUND(envp, real_execveat(dirfd, path, argv, env, flags));
}

/* execl-style argument lists, copied to the stack. */
#define VA_ARGV(argv, arg0, ap_last, with_env)                               \
    size_t argv##_n = 1;                                                     \
    va_list argv##_ap;                                                       \
    va_start(argv##_ap, ap_last);                                            \
    while (va_arg(argv##_ap, char *))                                        \
        argv##_n++;                                                          \
    va_end(argv##_ap);                                                       \
    char *argv[argv##_n + 1];                                                \
    char *const *argv##_env = environ;                                       \
    va_start(argv##_ap, ap_last);                                            \
    argv[0] = (char *)(arg0);                                                \
    for (size_t argv##_i = 1; argv##_i <= argv##_n; argv##_i++)              \
        argv[argv##_i] = va_arg(argv##_ap, char *);                          \
    if (with_env)                                                            \
        argv##_env = va_arg(argv##_ap, char *const *);                       \
    va_end(argv##_ap)

PP_EXPORT int execl(const char *path, const char *arg, ...)
{
    VA_ARGV(argv, arg, arg, 0);
    return execve(path, argv, argv_env);
}

PP_EXPORT int execlp(const char *file, const char *arg, ...)
{
    VA_ARGV(argv, arg, arg, 0);
    return execvpe(file, argv, argv_env);
}

PP_EXPORT int execle(const char *path, const char *arg, ...)
{
    VA_ARGV(argv, arg, arg, 1);
    return execve(path, argv, argv_env);
}

PP_EXPORT int posix_spawn(pid_t *pid, const char *path,
                          const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[],
                          char *const envp[])
{
    PATCHED_ENV(env, envp, PP_START_SPAWN);
    return real_posix_spawn(pid, path, fa, attr, argv, env);
}

PP_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                           const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[],
                           char *const envp[])
{
    PATCHED_ENV(env, envp, PP_START_SPAWN);
    return real_posix_spawnp(pid, file, fa, attr, argv, env);
}

/* glibc's system() spawns with the global environ; rather than change the
 * process's environment for the length of the command, system() is done
 * here with the same observable behaviour: /bin/sh -c, SIGINT and SIGQUIT
 * ignored and SIGCHLD blocked in the caller while it waits, the child with
 * the caller's mask and those signals at their default. */
PP_CHILD_WRITES static pthread_mutex_t system_lock = PTHREAD_MUTEX_INITIALIZER;
PP_CHILD_WRITES static int system_users;                     /* system() calls under way */
static struct sigaction system_old_int, system_old_quit;

/* As glibc: the first of concurrent calls ignores SIGINT and SIGQUIT and
 * the last one restores what the first saw, so that overlapping calls from
 * several threads cannot leave them ignored for good. */
static void system_enter(struct sigaction *old_int, struct sigaction *old_quit)
{
    pthread_mutex_lock(&system_lock);
    if (system_users++ == 0) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGINT, &ign, &system_old_int);
        sigaction(SIGQUIT, &ign, &system_old_quit);
    }
    *old_int = system_old_int;
    *old_quit = system_old_quit;
    pthread_mutex_unlock(&system_lock);
}

/* The child has none of the parent's other threads, so none of their
 * system() calls; a lock one of them held would never be released. */
static void system_after_fork(void)
{
    /* An assignment, not pthread_mutex_init: a fork handler makes no
     * call that is not async-signal-safe. */
    system_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    system_users = 0;
}

static void system_leave(void)
{
    pthread_mutex_lock(&system_lock);
    if (--system_users == 0) {
        sigaction(SIGINT, &system_old_int, NULL);
        sigaction(SIGQUIT, &system_old_quit, NULL);
    }
    pthread_mutex_unlock(&system_lock);
}

PP_EXPORT int system(const char *cmd)
{
    if (!cmd)
        return access("/bin/sh", X_OK) == 0;
    struct sigaction old_int, old_quit;
    system_enter(&old_int, &old_quit);
    sigset_t chld, old_mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old_mask);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t dfl;
    sigemptyset(&dfl);
    if (old_int.sa_handler != SIG_IGN)
        sigaddset(&dfl, SIGINT);
    if (old_quit.sa_handler != SIG_IGN)
        sigaddset(&dfl, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setsigmask(&attr, &old_mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    pid_t pid;
    int status = -1;
    int err = spawn_shell(&pid, cmd, NULL, &attr);
    posix_spawnattr_destroy(&attr);
    if (err == 0) {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                status = -1;
                break;
            }
        }
    } else {
        status = 127 << 8;      /* as glibc: the shell could not run */
    }
    int saved = errno;
    system_leave();
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    errno = saved;
    return status;
}

