/*
 * pp-spawn — the cost of the preload in a process start.
 *
 *     pp-spawn N LIB COMMAND [ARG...]
 *
 * Runs COMMAND 2*N times, alternating without and with LD_PRELOAD=LIB
 * (the rest of the environment as given), each time posix_spawn + waitpid
 * with stdout and stderr on /dev/null, and times each run with
 * CLOCK_MONOTONIC.  Prints
 *
 *     without_ns=MEDIAN with_ns=MEDIAN added_ns=MEDIAN_OF_PAIRED_DIFFS
 *     failures=K
 *
 * The paired difference (run 2i+1 minus run 2i) follows slow drifts of a
 * shared machine better than a difference of medians.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* environ without any LD_PRELOAD, plus one slot for ours. */
static char **make_env(const char *preload)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    if (preload)
        env[k++] = (char *)preload;
    env[k] = NULL;
    return env;
}

static int64_t run_once(char **argv, char **env, int *failed)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    uint64_t t0 = now_ns();
    int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
    int status = 0;
    if (r == 0)
        waitpid(pid, &status, 0);
    uint64_t t1 = now_ns();
    posix_spawn_file_actions_destroy(&fa);
    if (r != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        (*failed)++;
    return (int64_t)(t1 - t0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pp-spawn N LIB COMMAND [ARG...]\n");
        return 2;
    }
    size_t n = strtoul(argv[1], NULL, 10);
    if (n < 1)
        n = 1;
    char pre[4200];
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", argv[2]);
    char **plain = make_env(NULL), **with = make_env(pre);
    int64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b),
            *d = calloc(n, sizeof *d);
    if (!plain || !with || !a || !b || !d)
        return 1;
    int failed = 0;
    /* One warm-up of each: page cache, dynamic loader caches. */
    run_once(argv + 3, plain, &failed);
    run_once(argv + 3, with, &failed);
    failed = 0;
    for (size_t i = 0; i < n; i++) {
        /* Alternate which goes first so neither always follows the other. */
        if (i % 2) {
            b[i] = run_once(argv + 3, with, &failed);
            a[i] = run_once(argv + 3, plain, &failed);
        } else {
            a[i] = run_once(argv + 3, plain, &failed);
            b[i] = run_once(argv + 3, with, &failed);
        }
        d[i] = b[i] - a[i];
    }
    printf("without_ns=%lld with_ns=%lld added_ns=%lld failures=%d\n",
           (long long)median(a, n), (long long)median(b, n),
           (long long)median(d, n), failed);
    return 0;
}
