/*
 * index.c — the open-addressing hash index of index.h.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"

#define INDEX_MIN 64

uint64_t index_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

uint64_t index_hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return index_mix(h);
}

/* The table size for n items: a power of two, at least twice n + 1. */
static size_t size_for(size_t n, size_t from)
{
    size_t cap = from ? from : INDEX_MIN;
    while ((n + 1) * 2 > cap)
        cap *= 2;
    return cap;
}

int index_reserve(struct index *x, size_t used, index_hash_fn hash,
                  const void *ctx)
{
    if ((used + 1) * 2 <= x->cap)
        return 0;
    size_t cap = size_for(used, x->cap ? x->cap * 2 : 0);
    uint32_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < x->cap; i++)
        if (x->slot[i]) {
            size_t j = hash(ctx, x->slot[i] - 1) & (cap - 1);
            while (slot[j])
                j = (j + 1) & (cap - 1);
            slot[j] = x->slot[i];
        }
    free(x->slot);
    x->slot = slot;
    x->cap = x->alloc = cap;
    return 0;
}

int index_reset(struct index *x, size_t n)
{
    size_t cap = size_for(n, 0);
    if (cap > x->alloc) {
        free(x->slot);
        x->slot = malloc(cap * sizeof *x->slot);
        x->alloc = x->slot ? cap : 0;
    }
    x->cap = x->slot ? cap : 0;
    if (!x->slot)
        return -1;
    memset(x->slot, 0, cap * sizeof *x->slot);
    return 0;
}

uint32_t *index_slot(const struct index *x, uint64_t h, index_eq_fn eq,
                     const void *ctx, const void *key)
{
    size_t j = h & (x->cap - 1);
    while (x->slot[j] && !eq(ctx, x->slot[j] - 1, key))
        j = (j + 1) & (x->cap - 1);
    return &x->slot[j];
}

void index_free(struct index *x)
{
    free(x->slot);
    x->slot = NULL;
    x->cap = x->alloc = 0;
}
