/*
 * test_codecache.c — the code cache on code objects forged in this
 * process's memory as CPython 3.12 lays them out (python/layout/py312.c):
 * names and first line read once, a hit checked against the object's
 * current header so that an address reused by another code object is a
 * miss, objects of the wrong type refused, and entries handed out during
 * one sample never evicted within it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/linetable.h"

#define L (&py312_layout)

/* Stand-ins for PyCode_Type, PyUnicode_Type, PyBytes_Type: only their
 * addresses matter. */
static char code_type, str_type, bytes_type;

struct forged_str { uint8_t b[96]; };
struct forged_bytes { uint8_t b[64]; };
struct forged_code { uint8_t b[256]; };

static void put_ptr(uint8_t *obj, uint32_t off, const void *p)
{
    uintptr_t v = (uintptr_t)p;
    memcpy(obj + off, &v, sizeof v);
}

static void put_i64(uint8_t *obj, uint32_t off, int64_t v)
{
    memcpy(obj + off, &v, sizeof v);
}

static void put_i32(uint8_t *obj, uint32_t off, int32_t v)
{
    memcpy(obj + off, &v, sizeof v);
}

/* A compact ASCII str. */
static void make_str(struct forged_str *s, const char *text)
{
    size_t n = strlen(text);
    cr_assert_lt(L->str.ascii_data + n + 1, sizeof s->b);
    memset(s, 0, sizeof *s);
    put_ptr(s->b, L->ob_type, &str_type);
    put_i64(s->b, L->str.length, (int64_t)n);
    uint32_t state = (1u << L->str.kind_shift) | (1u << L->str.compact_bit) |
                     (1u << L->str.ascii_bit);
    memcpy(s->b + L->str.state, &state, sizeof state);
    memcpy(s->b + L->str.ascii_data, text, n + 1);
}

static void make_bytes(struct forged_bytes *o, const uint8_t *data, size_t n)
{
    cr_assert_lt(L->bytes_data + n, sizeof o->b);
    memset(o, 0, sizeof *o);
    put_ptr(o->b, L->ob_type, &bytes_type);
    put_i64(o->b, L->bytes_size, (int64_t)n);
    memcpy(o->b + L->bytes_data, data, n);
}

static void make_code(uint8_t *c, const struct forged_str *file,
                      const struct forged_str *name,
                      const struct forged_str *qualname,
                      const struct forged_bytes *table, int32_t firstlineno)
{
    memset(c, 0, L->co_read);
    put_ptr(c, L->ob_type, &code_type);
    put_ptr(c, L->co_filename, file);
    put_ptr(c, L->co_name, name);
    put_ptr(c, L->co_qualname, qualname);
    put_ptr(c, L->co_linetable, table);
    put_i32(c, L->co_firstlineno, firstlineno);
}

/* Two entries of the 3.11+ table format without columns (code 13, then
 * the line delta as a signed varint): code units 0-1 on firstlineno + 1,
 * unit 2 on firstlineno + 3. */
static const uint8_t table_data[] = { 0x80 | 13 << 3 | 1, 2, 0x80 | 13 << 3 | 0, 4 };

static struct forged_str file, name, qualname, other_qualname;
static struct forged_bytes table;
static struct forged_code code;

static void setup(void)
{
    codecache_types((uintptr_t)&code_type, (uintptr_t)&str_type,
                    (uintptr_t)&bytes_type);
    make_str(&file, "/srv/app/jobs.py");
    make_str(&name, "run");
    make_str(&qualname, "Job.run");
    make_str(&other_qualname, "Report.render");
    make_bytes(&table, table_data, sizeof table_data);
    make_code(code.b, &file, &name, &qualname, &table, 40);
    codecache_new_tick();
}

static void teardown(void)
{
    codecache_reset();
}

TestSuite(codecache, .init = setup, .fini = teardown);

Test(codecache, reads_names_first_line_and_lines_of_a_code_object)
{
    struct code_info *c = codecache_get(L, (uintptr_t)&code);
    cr_assert_not_null(c);
    cr_expect_str_eq(c->filename, "/srv/app/jobs.py");
    cr_expect_str_eq(c->name, "run");
    cr_expect_str_eq(c->qualname, "Job.run");
    cr_expect_eq(c->firstlineno, 40);
    cr_expect_eq(codecache_line(L, c, 0), 41);
    cr_expect_eq(codecache_line(L, c, 1), 41);
    cr_expect_eq(codecache_line(L, c, 2), 43);
    cr_expect_eq(codecache_line(L, c, 2), 43, "the remembered last line");
    cr_expect_eq(codecache_line(L, c, 2),
                 linetable_line_311(table_data, sizeof table_data, 40, 2));
}

/* The names are read on first sight only: a hit is the same entry, and
 * the strings are not read again while the header still points to them. */
Test(codecache, a_hit_is_the_same_entry_without_reading_the_names_again)
{
    struct code_info *c = codecache_get(L, (uintptr_t)&code);
    cr_assert_not_null(c);
    make_str(&qualname, "Changed.name");
    codecache_new_tick();
    cr_expect_eq(codecache_get(L, (uintptr_t)&code), c);
    cr_expect_str_eq(c->qualname, "Job.run");
    cr_expect_eq(codecache_peek((uintptr_t)&code), c);
}

/* A freed code object whose address another one took: its header points
 * elsewhere, so the address is a miss and never the old name. */
Test(codecache, an_address_reused_by_another_code_object_is_a_miss)
{
    struct code_info *c = codecache_get(L, (uintptr_t)&code);
    cr_assert_not_null(c);
    uint32_t evictions = codecache_evictions();
    make_code(code.b, &file, &name, &other_qualname, &table, 70);
    codecache_new_tick();
    struct code_info *again = codecache_get(L, (uintptr_t)&code);
    cr_assert_not_null(again);
    cr_expect_str_eq(again->qualname, "Report.render");
    cr_expect_eq(again->firstlineno, 70);
    cr_expect_neq(codecache_evictions(), evictions,
                  "dropping the old entry is counted as an eviction");
}

Test(codecache, objects_of_the_wrong_type_are_refused)
{
    put_ptr(code.b, L->ob_type, &str_type);
    cr_expect_null(codecache_get(L, (uintptr_t)&code), "not a code object");
    put_ptr(code.b, L->ob_type, &code_type);
    put_ptr(qualname.b, L->ob_type, &bytes_type);
    cr_expect_null(codecache_get(L, (uintptr_t)&code), "qualname not a str");
    put_ptr(qualname.b, L->ob_type, &str_type);
    put_ptr(table.b, L->ob_type, &str_type);
    cr_expect_null(codecache_get(L, (uintptr_t)&code), "line table not bytes");
    put_ptr(table.b, L->ob_type, &bytes_type);
    cr_expect_not_null(codecache_get(L, (uintptr_t)&code));
}

Test(codecache, unreadable_addresses_are_refused)
{
    cr_expect_null(codecache_get(L, 0));
    cr_expect_null(codecache_get(L, 16));
    cr_expect_null(codecache_get(L, 1ULL << 47));
    cr_expect_null(codecache_peek((uintptr_t)&code), "nothing cached");
}

/* Where codecache.c puts an address (its two-way sets). */
static unsigned set_of(uintptr_t addr)
{
    uint64_t h = (uint64_t)addr * 0x9E3779B97F4A7C15ULL;
    return (unsigned)(h >> 40) & 4095u;
}

/* Three code objects whose addresses share one set: the two taken in one
 * sample stay (the third gets the "<unknown>" entry), and in the next
 * sample the third takes the way used least recently. */
Test(codecache, entries_in_use_by_a_sample_are_not_evicted_within_it)
{
    enum { SLOTS = 1 << 14, STRIDE = 256 };
    uint8_t *arena = aligned_alloc(STRIDE, (size_t)SLOTS * STRIDE);
    cr_assert_not_null(arena);
    uint8_t *same[3];
    int found = 0;
    for (unsigned i = 0; i < SLOTS && found < 3; i++) {
        uint8_t *at = arena + (size_t)i * STRIDE;
        if (found == 0 || set_of((uintptr_t)at) == set_of((uintptr_t)same[0]))
            same[found++] = at;
    }
    cr_assert_eq(found, 3, "no three addresses share a set");
    for (int i = 0; i < 3; i++)
        make_code(same[i], &file, &name, &qualname, &table, 10 * (i + 1));

    struct code_info *a = codecache_get(L, (uintptr_t)same[0]);
    struct code_info *b = codecache_get(L, (uintptr_t)same[1]);
    cr_assert(a && b && a != b);
    struct code_info *c = codecache_get(L, (uintptr_t)same[2]);
    cr_assert_not_null(c);
    cr_expect_str_eq(c->qualname, "<unknown>");
    cr_expect_eq(a->firstlineno, 10, "a kept its entry");
    cr_expect_eq(b->firstlineno, 20, "b kept its entry");

    codecache_new_tick();
    uint32_t evictions = codecache_evictions();
    c = codecache_get(L, (uintptr_t)same[2]);
    cr_assert_not_null(c);
    cr_expect_eq(c->firstlineno, 30);
    cr_expect_eq(c, a, "the least recently used way (a's) is taken");
    cr_expect_eq(codecache_evictions(), evictions + 1);
    cr_expect_eq(codecache_peek((uintptr_t)same[1]), b);
    cr_expect_null(codecache_peek((uintptr_t)same[0]));
    codecache_reset();
    free(arena);
}
