/*
 * test_identity.c — a fork child's id (base/identity.h, pp_child_uid):
 * made without a system call from its parent's id, its pid and the time
 * of the fork, it must still be unique: among the children of one parent
 * (pids reused at other times, many children in one clock tick's worth of
 * nanoseconds) and among children of different parents with the same pid
 * and time; never 0 (no parent) and never the parent's own.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/identity.h"

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t duplicates(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    size_t d = 0;
    for (size_t i = 1; i < n; i++)
        d += v[i] == v[i - 1];
    return d;
}

Test(identity, one_parents_children_differ_across_pids_and_times)
{
    const uint64_t parent = 0x5eed5eed12345678ULL;
    enum { PIDS = 1000, TIMES = 200 };
    uint64_t *v = malloc(sizeof *v * PIDS * TIMES);
    cr_assert_not_null(v);
    size_t n = 0;
    for (pid_t pid = 2; pid < 2 + PIDS; pid++)
        for (uint64_t t = 0; t < TIMES; t++) {
            /* nanoseconds apart and a second apart: both kinds of reuse */
            uint64_t at = 1000000000ULL * (t / 2) + (t & 1);
            uint64_t u = pp_child_uid(parent, pid, at);
            cr_assert_neq(u, 0);
            cr_assert_neq(u, parent);
            v[n++] = u;
        }
    cr_expect_eq(duplicates(v, n), 0, "%zu of %zu ids repeat", duplicates(v, n), n);
    free(v);
}

Test(identity, same_pid_and_time_under_different_parents_differ)
{
    enum { PARENTS = 100000 };
    uint64_t *v = malloc(sizeof *v * PARENTS);
    cr_assert_not_null(v);
    for (size_t i = 0; i < PARENTS; i++)
        v[i] = pp_child_uid(pp_new_uid(), 4242, 123456789ULL);
    cr_expect_eq(duplicates(v, PARENTS), 0);
    /* and parents whose ids differ in one bit */
    for (size_t i = 0; i < 64; i++)
        v[i] = pp_child_uid(1ULL << i, 4242, 123456789ULL);
    cr_expect_eq(duplicates(v, 64), 0);
    free(v);
}
