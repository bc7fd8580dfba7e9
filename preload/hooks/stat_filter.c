/*
 * stat_filter.c — the sampler thread is not counted where CPython counts
 * threads right after fork.
 *
 * CPython >= 3.12 warns ("This process ... is multi-threaded, use of
 * fork() may lead to deadlocks in the child") when, in the parent, just
 * after fork() returned, the 20th field of /proc/self/stat (num_threads)
 * is above 1.  It reads that file with fopen in the thread that forked,
 * before any other fopen of that thread.  The sampler thread would make
 * every single-threaded program that calls os.fork() print the warning,
 * which it would not have printed unobserved.
 *
 * So the fork wrapper arms a one-shot flag for the thread that forked, in
 * the parent only, and the next fopen of "/proc/self/stat" by that thread
 * reads a copy of the file with our own thread taken out of num_threads.
 * Any other fopen of that thread disarms the flag first; no other thread,
 * path or moment is touched.  A program that runs threads of its own still
 * sees them counted and still gets its warning.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hooks/stat_filter.h"
#include "sample/sampler.h"
#include "base/identity.h"

typedef FILE *(*fopen_fn)(const char *, const char *);
static fopen_fn real_fopen, real_fopen64;
static __thread int armed __attribute__((tls_model("initial-exec")));


void stat_filter_arm(void) { armed = 1; }

static FILE *stat_without_us(fopen_fn real, const char *path, const char *mode)
{
    FILE *f = real(path, mode);
    if (!f || !sampler_alive())
        return f;
    char line[2048];
    size_t len = fread(line, 1, sizeof line - 1, f);
    line[len] = 0;
    size_t nlen = len && len < sizeof line - 1
                      ? stat_line_hide_threads(line, len, sizeof line, 1)
                      : 0;
    if (!nlen) {
        rewind(f);
        return f;
    }
    /* fmemopen(NULL, ...) owns its buffer and frees it at fclose. */
    FILE *m = fmemopen(NULL, nlen, "w+");
    if (!m || fwrite(line, 1, nlen, m) != nlen) {
        if (m)
            fclose(m);
        rewind(f);
        return f;
    }
    rewind(m);
    fclose(f);
    return m;
}

static FILE *open_file(fopen_fn real, const char *path, const char *mode)
{
    if (__builtin_expect(armed, 0)) {
        armed = 0;
        if (path && mode && mode[0] == 'r' && !strchr(mode, '+') &&
            !strcmp(path, "/proc/self/stat"))
            return stat_without_us(real, path, mode);
    }
    return real(path, mode);
}

PP_EXPORT FILE *fopen(const char *path, const char *mode)
{
    if (!real_fopen)
        real_fopen = (fopen_fn)dlsym(RTLD_NEXT, "fopen");
    return open_file(real_fopen, path, mode);
}

PP_EXPORT FILE *fopen64(const char *path, const char *mode)
{
    if (!real_fopen64)
        real_fopen64 = (fopen_fn)dlsym(RTLD_NEXT, "fopen64");
    return open_file(real_fopen64 ? real_fopen64 : real_fopen, path, mode);
}
