/*
 * forged_objects.h — for the unit tests that read CPython objects from
 * memory: str, bytes and code objects forged in this process, as the
 * layout L lays them out, in a zeroed pool.  Each test file that includes
 * it sets L (and resets the pool) before forging.
 */
#ifndef PYPROF_TEST_FORGED_OBJECTS_H
#define PYPROF_TEST_FORGED_OBJECTS_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/layout/layout.h"

static char code_type, str_type, bytes_type;
static const struct py_layout *L;

/* Every forged object lives in a zeroed block at an offset of 64, so that
 * the words before it (3.11+'s managed dict and values) are inside it. */
#define PRE 64
static uint8_t pool[1 << 18] __attribute__((aligned(64)));
static size_t used;

static inline uint8_t *block(size_t size)
{
    size = (PRE + size + 63) & ~(size_t)63;
    cr_assert_leq(used + size, sizeof pool);
    uint8_t *b = pool + used;
    used += size;
    return b + PRE;
}

static inline void put(uint8_t *obj, long off, uintptr_t v)
{
    memcpy(obj + off, &v, sizeof v);
}

static inline uint8_t *str(const char *text)
{
    size_t n = strlen(text);
    uint8_t *s = block(128);
    put(s, L->ob_type, (uintptr_t)&str_type);
    put(s, L->str.length, n);
    uint32_t state = (1u << L->str.kind_shift) | (1u << L->str.compact_bit) |
                     (1u << L->str.ascii_bit);
    memcpy(s + L->str.state, &state, sizeof state);
    memcpy(s + L->str.ascii_data, text, n + 1);
    return s;
}

static inline uint8_t *code(const char *name, const char *file)
{
    static const uint8_t table[] = { 0x80 | 13 << 3 | 1, 2 };
    uint8_t *b = block(64), *c = block(512);
    put(b, L->ob_type, (uintptr_t)&bytes_type);
    put(b, L->bytes_size, sizeof table);
    memcpy(b + L->bytes_data, table, sizeof table);
    put(c, L->ob_type, (uintptr_t)&code_type);
    put(c, L->co_filename, (uintptr_t)str(file));
    put(c, L->co_name, (uintptr_t)str(name));
    if (L->co_qualname)
        put(c, L->co_qualname, (uintptr_t)str(name));
    put(c, L->co_linetable, (uintptr_t)b);
    return c;
}

#endif
