/*
 * test_pystr.c — str objects decoded from raw images laid out as CPython
 * lays them out (3.12's header sizes, and 3.10's larger ones).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/pystr.h"

static uint8_t mem[4096];

/* Reads only inside mem: anything else is a fault. */
static int rd(void *dst, uintptr_t src, size_t n)
{
    uintptr_t lo = (uintptr_t)mem, hi = lo + sizeof mem;
    if (src < lo || src + n > hi || src + n < src)
        return -1;
    memcpy(dst, (const void *)src, n);
    return 0;
}

static const struct pystr_layout L312 = { 16, 32, 40, 56, 56, 2, 5, 6 };
static const struct pystr_layout L310 = { 16, 32, 48, 72, 72, 2, 5, 6 };

/* Builds a compact str of the given kind at mem with the code points cps. */
static uintptr_t make(const struct pystr_layout *l, const uint32_t *cps, size_t n,
                      unsigned kind, int ascii)
{
    memset(mem, 0, sizeof mem);
    int64_t len = (int64_t)n;
    uint32_t state = (kind << l->kind_shift) | (1u << l->compact_bit) |
                     ((uint32_t)ascii << l->ascii_bit);
    memcpy(mem + l->length, &len, sizeof len);
    memcpy(mem + l->state, &state, sizeof state);
    uint8_t *data = mem + (ascii ? l->ascii_data : l->compact_data);
    for (size_t i = 0; i < n; i++) {
        if (kind == 1)
            data[i] = (uint8_t)cps[i];
        else if (kind == 2) {
            uint16_t u = (uint16_t)cps[i];
            memcpy(data + 2 * i, &u, 2);
        } else
            memcpy(data + 4 * i, &cps[i], 4);
    }
    return (uintptr_t)mem;
}

static void expect(const struct pystr_layout *l, uintptr_t obj, const char *want)
{
    char out[256];
    int n = pystr_utf8(l, rd, obj, out, sizeof out);
    cr_assert_eq(n, (int)strlen(want), "length %d, expected %zu", n, strlen(want));
    cr_assert_str_eq(out, want);
}

Test(pystr, decodes_compact_ascii_names)
{
    const uint32_t s[] = { 'r', 'u', 'n', '_', 'j', 'o', 'b' };
    expect(&L312, make(&L312, s, 7, 1, 1), "run_job");
    expect(&L310, make(&L310, s, 7, 1, 1), "run_job");
}

Test(pystr, decodes_latin1_names)
{
    const uint32_t s[] = { 'c', 'a', 'f', 0xe9 };
    expect(&L312, make(&L312, s, 4, 1, 0), "caf\xc3\xa9");
}

Test(pystr, decodes_ucs2_names)
{
    const uint32_t s[] = { 0x3a9, 0x3bc, 0x3ad, 0x3b3, 0x3b1, 0x4e2d };
    expect(&L312, make(&L312, s, 6, 2, 0),
           "\xce\xa9\xce\xbc\xce\xad\xce\xb3\xce\xb1\xe4\xb8\xad");
}

Test(pystr, decodes_ucs4_names)
{
    const uint32_t s[] = { 'f', 0x1F600 };
    expect(&L310, make(&L310, s, 2, 4, 0), "f\xf0\x9f\x98\x80");
}

Test(pystr, decodes_legacy_strings_through_their_data_pointer)
{
    const uint32_t s[] = { 'o', 'l', 'd' };
    uintptr_t obj = make(&L312, s, 3, 1, 1);
    /* non-compact: the characters live elsewhere, pointed to by data.any */
    uint32_t state = (1u << L312.kind_shift);
    memcpy(mem + L312.state, &state, sizeof state);
    memcpy(mem + 1024, "old", 3);
    uintptr_t where = (uintptr_t)(mem + 1024);
    memcpy(mem + L312.legacy_data, &where, sizeof where);
    expect(&L312, obj, "old");
}

Test(pystr, cuts_long_strings_at_a_character_boundary)
{
    uint32_t s[40];
    for (size_t i = 0; i < 40; i++)
        s[i] = 0x3a9;                      /* two bytes each in UTF-8 */
    char out[8];
    int n = pystr_utf8(&L312, rd, make(&L312, s, 40, 2, 0), out, sizeof out);
    cr_assert_eq(n, 6);
    cr_assert_str_eq(out, "\xce\xa9\xce\xa9\xce\xa9");
}

Test(pystr, rejects_garbage_headers)
{
    const uint32_t s[] = { 'x' };
    uintptr_t obj = make(&L312, s, 1, 3, 0);   /* kind 3 does not exist */
    char out[16];
    cr_assert_eq(pystr_utf8(&L312, rd, obj, out, sizeof out), -1);
    int64_t huge = 1LL << 40;
    make(&L312, s, 1, 1, 1);
    memcpy(mem + L312.length, &huge, sizeof huge);
    cr_assert_eq(pystr_utf8(&L312, rd, obj, out, sizeof out), -1);
    cr_assert_eq(pystr_utf8(&L312, rd, 16, out, sizeof out), -1);
}

Test(pystr, encodes_code_points_as_utf8)
{
    char b[4];
    cr_assert_eq(pystr_put_utf8(0x7f, b), 1u);
    cr_assert_eq(pystr_put_utf8(0x7ff, b), 2u);
    cr_assert_eq(pystr_put_utf8(0xffff, b), 3u);
    cr_assert_eq(pystr_put_utf8(0x10ffff, b), 4u);
    cr_assert_eq(pystr_put_utf8(0xd800, b), 3u);   /* surrogate -> U+FFFD */
    cr_assert(!memcmp(b, "\xef\xbf\xbd", 3));
}
