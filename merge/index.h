/*
 * index.h — an open-addressing hash index over items its user keeps in
 * an array of its own: a slot holds an item's number plus one (0 is
 * empty); the table has a power-of-two size, is at most half full and is
 * probed linearly.  The model's functions, frames, trie nodes and stacks,
 * the process tree's ids, the worker folding, pprof's string table and
 * pstats' call edges each keep one.
 */
#ifndef PYPROF_MERGE_INDEX_H
#define PYPROF_MERGE_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct index {
    uint32_t *slot;
    size_t cap;         /* slots in use: a power of two                 */
    size_t alloc;       /* slots allocated (index_reset keeps the most) */
};

/* The hash of item number `item` (as at insertion), and whether it is key. */
typedef uint64_t (*index_hash_fn)(const void *ctx, uint32_t item);
typedef int (*index_eq_fn)(const void *ctx, uint32_t item, const void *key);

/* Room for one more than `used` items, rehashing the items with hash when
 * the table grows.  Returns 0, or -1 out of memory (the index unchanged). */
int index_reserve(struct index *x, size_t used, index_hash_fn hash,
                  const void *ctx);

/* An empty table with room for `n` items, reusing the memory it has.
 * Returns 0, or -1 out of memory (the index then empty of memory). */
int index_reset(struct index *x, size_t n);

/* The slot where the item equal to key (of hash h) is, or the empty one
 * where it belongs: *slot is its number plus one, or 0.  The table must
 * have room (index_reserve or index_reset). */
uint32_t *index_slot(const struct index *x, uint64_t h, index_eq_fn eq,
                     const void *ctx, const void *key);

void index_free(struct index *x);

/* Hashes for keys: a 64-bit mix, and a string folded into h. */
uint64_t index_mix(uint64_t h);
uint64_t index_hash_str(uint64_t h, const char *s);

#define INDEX_SEED 1469598103934665603ULL

#endif
