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
#include <stddef.h>
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

#ifdef __GLIBC__
/* The edit made in the stream's own buffer, filled by its first read
 * (the whole file: /proc hands a stat line over in one read), to be read
 * from its start as the file would be; the stream is then at the file's
 * end, where the file would have been after that read (a seek reads the
 * file again, unedited: CPython's check reads it once).  No second
 * stream and no memory of ours: this runs in the parent right after each
 * fork, where every heap page written is a copy-on-write fault.  The
 * fields are glibc's public FILE layout (bits/types/struct_FILE.h).
 * 0: nothing changed but the position, for stat_without_us to rewind. */
static int edit_in_buffer(FILE *f)
{
    if (fgetc(f) == EOF || !f->_IO_buf_base ||
        f->_IO_read_base != f->_IO_buf_base)
        return 0;
    size_t have = (size_t)(f->_IO_read_end - f->_IO_buf_base),
           cap = (size_t)(f->_IO_buf_end - f->_IO_buf_base);
    char line[2048];
    if (!have || have >= cap || have >= sizeof line ||
        f->_IO_buf_base[have - 1] != '\n')
        return 0;
    memcpy(line, f->_IO_buf_base, have);
    line[have] = 0;
    size_t nlen = stat_line_hide_threads(line, have, sizeof line, 1);
    if (!nlen || nlen > cap)
        return 0;
    memcpy(f->_IO_buf_base, line, nlen);
    f->_IO_read_ptr = f->_IO_buf_base;
    f->_IO_read_end = f->_IO_buf_base + nlen;
    return 1;
}
#endif

static FILE *stat_without_us(fopen_fn real, const char *path, const char *mode)
{
    FILE *f = real(path, mode);
    if (!f || !sampler_alive())
        return f;
#ifdef __GLIBC__
    if (edit_in_buffer(f))
        return f;
    rewind(f);
#endif
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
