/*
 * test_index.c — merge/index.c, the hash index every table of
 * pyprof-merge keeps: what goes in is found again, across growth, with
 * every key colliding, and after a reset to a smaller table.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "index.h"

#define N 5000

static uint64_t keys[N];

static uint64_t key_hash(const void *ctx, uint32_t i)
{
    (void)ctx;
    return index_mix(keys[i]);
}
static uint64_t same_hash(const void *ctx, uint32_t i)
{
    (void)ctx;
    (void)i;
    return 7;
}
static int key_eq(const void *ctx, uint32_t i, const void *key)
{
    (void)ctx;
    return keys[i] == *(const uint64_t *)key;
}

/* Adds keys[0..n) (hashed by hash, or all at 7), each once, then finds
 * each and misses one never added. */
static void fill_and_find(struct index *x, size_t n, index_hash_fn hash)
{
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = 0x9e3779b97f4a7c15ULL * (i + 1);
        cr_assert(index_reserve(x, i, hash, NULL) == 0);
        cr_assert(x->cap >= 2 * (i + 1), "table more than half full");
        uint32_t *slot = index_slot(x, hash(NULL, i), key_eq, NULL, &keys[i]);
        cr_assert_eq(*slot, 0, "key %u found before it was added", i);
        *slot = i + 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *slot = index_slot(x, hash(NULL, i), key_eq, NULL, &keys[i]);
        cr_assert_eq(*slot, i + 1, "key %u lost (found %u)", i, *slot);
    }
    uint64_t absent = 12345;
    cr_assert_eq(*index_slot(x, index_mix(absent), key_eq, NULL, &absent), 0);
}

Test(index, what_goes_in_is_found_again_as_the_table_grows)
{
    struct index x = { 0 };
    fill_and_find(&x, N, key_hash);
    cr_expect(x.cap > 0 && (x.cap & (x.cap - 1)) == 0, "size %zu", x.cap);
    index_free(&x);
    cr_expect(!x.slot && !x.cap && !x.alloc);
}

Test(index, keys_that_all_collide_are_still_told_apart)
{
    struct index x = { 0 };
    fill_and_find(&x, 300, same_hash);
    index_free(&x);
}

Test(index, a_reset_empties_the_table_and_keeps_its_memory)
{
    struct index x = { 0 };
    fill_and_find(&x, N, key_hash);
    uint32_t *mem = x.slot;
    size_t big = x.alloc;
    cr_assert(index_reset(&x, 10) == 0);
    cr_expect(x.slot == mem && x.alloc == big, "a smaller reset reallocated");
    cr_expect(x.cap < big && x.cap >= 22, "size %zu for 10 items", x.cap);
    for (size_t i = 0; i < x.cap; i++)
        cr_assert_eq(x.slot[i], 0, "slot %zu kept an item", i);
    fill_and_find(&x, 10, key_hash);
    cr_assert(index_reset(&x, 2 * N) == 0);
    cr_expect(x.cap >= 4 * N + 2 && x.alloc == x.cap);
    index_free(&x);
}

Test(index, string_hashes_depend_on_every_byte_and_the_seed)
{
    cr_expect_neq(index_hash_str(INDEX_SEED, "ab"), index_hash_str(INDEX_SEED, "ba"));
    cr_expect_neq(index_hash_str(INDEX_SEED, "a"), index_hash_str(INDEX_SEED + 1, "a"));
    cr_expect_eq(index_hash_str(INDEX_SEED, "work"), index_hash_str(INDEX_SEED, "work"));
}
