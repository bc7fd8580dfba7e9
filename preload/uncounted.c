/* uncounted.c — see uncounted.h. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <time.h>

#include "log.h"
#include "uncounted.h"

/* glibc's count of running threads: exported (GLIBC_PRIVATE) for
 * libthread_db, decremented by every thread that ends without exit(), the
 * one that takes it to zero calling exit(0) (tests/py/last_thread.py shows
 * it without the library). */
static _Atomic unsigned int *nthreads;

enum { OUT_NONE, OUT_PENDING, OUT_DONE };
static _Atomic int state;

void pp_uncount_prepare(void) { atomic_store(&state, OUT_PENDING); }
void pp_uncount_cancel(void) { atomic_store(&state, OUT_NONE); }

int pp_uncount_sampler(void)
{
    if (!nthreads)
        nthreads = (_Atomic unsigned int *)dlsym(RTLD_DEFAULT,
                                                 "__nptl_nthreads");
    if (!nthreads) {
        atomic_store(&state, OUT_NONE);
        pp_log(1, "glibc's thread count not found; a process whose threads "
                  "all end without exit() is kept alive by the sampler");
        return -1;
    }
    /* The creating thread is running and counted: this never reaches 0. */
    atomic_fetch_sub(nthreads, 1);
    atomic_store(&state, OUT_DONE);
    return 0;
}

int pp_recount_sampler(void)
{
    struct timespec ms = { 0, 1000000 };
    while (atomic_load(&state) == OUT_PENDING)
        nanosleep(&ms, NULL);
    if (atomic_load(&state) != OUT_DONE)
        return 1;
    unsigned int n = atomic_load(nthreads);
    do {
        if (n == 0)
            return 0;
    } while (!atomic_compare_exchange_weak(nthreads, &n, n + 1));
    atomic_store(&state, OUT_NONE);
    return 1;
}
