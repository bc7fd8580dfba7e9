/*
 * hash.h — FNV-1a over bytes, never 0 (0 marks an empty slot or "none"
 * where the callers keep hashes: the writer's string table, the
 * sampler's thread names).
 */
#ifndef PYPROF_HASH_H
#define PYPROF_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t pp_hash_bytes(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ULL;
    return h | 1;
}

#endif
