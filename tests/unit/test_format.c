/* test_format.c — the varint and zigzag codings both sides share. */
#include <criterion/criterion.h>

#include "pyprof/format.h"

Test(format, varints_round_trip_at_every_width)
{
    const uint64_t values[] = { 0, 1, 127, 128, 16383, 16384, 1u << 28,
                                (1ULL << 35) + 7, UINT64_MAX - 1, UINT64_MAX };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        uint8_t buf[10];
        size_t n = pp_put_varint(buf, values[i]);
        cr_assert(n >= 1 && n <= 10);
        const uint8_t *p = buf;
        uint64_t got;
        cr_assert_eq(pp_get_varint(&p, buf + n, &got), 0);
        cr_assert_eq(got, values[i]);
        cr_assert_eq(p, buf + n, "the reader must consume exactly what was written");
    }
}

Test(format, a_cut_varint_is_an_error_not_a_value)
{
    uint8_t buf[10];
    size_t n = pp_put_varint(buf, 1ULL << 40);
    for (size_t cut = 0; cut < n; cut++) {
        const uint8_t *p = buf;
        uint64_t v;
        cr_assert_eq(pp_get_varint(&p, buf + cut, &v), -1, "cut at %zu", cut);
        cr_assert_eq(p, buf, "a failed read must not advance");
    }
}

Test(format, an_overlong_varint_is_rejected)
{
    uint8_t buf[12];
    memset(buf, 0xff, sizeof buf);
    const uint8_t *p = buf;
    uint64_t v;
    cr_assert_eq(pp_get_varint(&p, buf + sizeof buf, &v), -1);
}

Test(format, zigzag_keeps_small_negatives_small)
{
    const int64_t values[] = { 0, -1, 1, -2, 2, -1000000, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        cr_assert_eq(pp_unzigzag(pp_zigzag(values[i])), values[i]);
    cr_assert_eq(pp_zigzag(-1), 1u);
    cr_assert_eq(pp_zigzag(1), 2u);
}
