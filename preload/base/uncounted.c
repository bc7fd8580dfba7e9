/* uncounted.c — see uncounted.h. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <time.h>

#include "base/child_writes.h"
#include "base/log.h"
#include "base/uncounted.h"

/* glibc's count of running threads: exported (GLIBC_PRIVATE) for
 * libthread_db, decremented by every thread that ends without exit(), the
 * one that takes it to zero calling exit(0) (tests/py/last_thread.py shows
 * what that looks like). */
static _Atomic unsigned int *nthreads;

/* Samplers being created, and samplers taken out of the count.  Counts,
 * not flags: after a failed exec the old sampler may put itself back
 * while the new one is already out. */
PP_CHILD_WRITES static _Atomic int pending, out;

void uncounted_prepare(void) { atomic_fetch_add(&pending, 1); }
void uncounted_cancel(void) { atomic_fetch_sub(&pending, 1); }

int uncounted_sampler(void)
{
    if (!nthreads)
        nthreads = (_Atomic unsigned int *)dlsym(RTLD_DEFAULT,
                                                 "__nptl_nthreads");
    int r = 0;
    if (nthreads) {
        /* The creating thread is running and counted: never reaches 0. */
        atomic_fetch_sub(nthreads, 1);
        atomic_fetch_add(&out, 1);
    } else {
        pp_log(1, "glibc's thread count not found; a process whose threads "
                  "all end without exit() is kept alive by the sampler");
        r = -1;
    }
    atomic_fetch_sub(&pending, 1);
    return r;
}

int uncounted_recount(void)
{
    struct timespec ms = { 0, 1000000 };
    while (atomic_load(&pending) > 0)
        nanosleep(&ms, NULL);
    if (atomic_load(&out) <= 0)
        return 1;
    unsigned int n = atomic_load(nthreads);
    do {
        if (n == 0)
            return 0;
    } while (!atomic_compare_exchange_weak(nthreads, &n, n + 1));
    atomic_fetch_sub(&out, 1);
    return 1;
}

void uncounted_after_fork(void)
{
    atomic_store(&pending, 0);
    atomic_store(&out, 0);
}
