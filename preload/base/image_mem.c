/*
 * image_mem.c — anonymous mappings a fork child gets zero-filled
 * (image_mem.h).
 */
#include <stdatomic.h>
#include <sys/mman.h>

#include "base/image_mem.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static _Atomic int refused;     /* a madvise failed: children get copies */

void *image_mem_alloc(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* Failure (an older kernel) leaves ordinary memory: see image_mem.h. */
    if (madvise(p, size, MADV_WIPEONFORK) != 0)
        atomic_store(&refused, 1);
    return p;
}

void image_mem_free(void *p, size_t size)
{
    if (p)
        munmap(p, size);
}

int image_mem_wiped(void) { return !atomic_load(&refused); }
