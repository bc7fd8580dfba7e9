/*
 * codecache.c — code object -> names and line table, read once.
 *
 * A two-way set-associative table keyed by address.  Every hit is checked
 * against a fresh read of the object's header (type, names, line table,
 * first line): a freed code object whose address was reused by another is
 * a miss, never the old name.  Entries handed out during one sample are
 * pinned so that resolving a deep stack cannot evict an entry an outer
 * frame of the same stack still points to.
 */
#include <stdlib.h>
#include <string.h>

#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/linetable.h"
#include "python/pystr.h"
#include "guard/safe_read.h"

#define SETS        4096u
#define WAYS        2u
#define MAX_TABLE   (64u << 10)
#define MAX_NAME    1024u

/* The interpreter's type objects, from codecache_types. */
static uintptr_t code_type, str_type, bytes_type;

void codecache_types(uintptr_t code, uintptr_t str, uintptr_t bytes)
{
    code_type = code;
    str_type = str;
    bytes_type = bytes;
}

static struct code_info table[SETS][WAYS];
static uint32_t tick = 1;

static struct code_info unknown = {
    .qualname = "<unknown>", .name = "<unknown>", .filename = "<unknown>",
    .firstlineno = 0, .last_lasti = -2,
};

static unsigned set_of(uintptr_t addr)
{
    uint64_t h = (uint64_t)addr * 0x9E3779B97F4A7C15ULL;
    return (unsigned)(h >> 40) & (SETS - 1);
}

void codecache_new_tick(void)
{
    tick++;
}

static uint32_t evictions;

uint32_t codecache_evictions(void) { return evictions; }

static void drop(struct code_info *c)
{
    evictions++;
    free((char *)c->qualname);
    if (c->name != c->qualname)
        free((char *)c->name);
    free((char *)c->filename);
    free((uint8_t *)c->linetable);
    callsite_free(&c->calls);
    free(c->depths);
    memset(c, 0, sizeof *c);
}

static char *read_str(const struct py_layout *l, uintptr_t obj)
{
    char buf[MAX_NAME];
    uintptr_t type;
    if (!obj || safe_read_ptr(obj + l->ob_type, &type) != 0 ||
        type != str_type)
        return NULL;
    if (pystr_utf8(&l->str, safe_read, obj, buf, sizeof buf) < 0)
        return NULL;
    return strdup(buf);
}

static int read_table(const struct py_layout *l, uintptr_t obj,
                      struct code_info *c)
{
    uintptr_t type;
    int64_t size;
    if (!obj || safe_read_ptr(obj + l->ob_type, &type) != 0 ||
        type != bytes_type ||
        safe_read(&size, obj + l->bytes_size, sizeof size) != 0 ||
        size < 0 || size > MAX_TABLE)
        return -1;
    uint8_t *t = malloc(size ? (size_t)size : 1);
    if (!t || (size && safe_read(t, obj + l->bytes_data, (size_t)size) != 0)) {
        free(t);
        return -1;
    }
    c->linetable = t;
    c->linetable_len = (uint32_t)size;
    return 0;
}

static uintptr_t load_ptr(const uint8_t *raw, uint32_t off)
{
    uintptr_t v;
    memcpy(&v, raw + off, sizeof v);
    return v;
}

static int32_t load_i32(const uint8_t *raw, uint32_t off)
{
    int32_t v;
    memcpy(&v, raw + off, sizeof v);
    return v;
}

/* The fields that identify a code object's contents: where its names and
 * line table are, its first line, and its name's hash (a str's hash
 * follows its length in every version).  The addresses alone are not
 * enough: a program that compiles code in a loop frees each code object
 * with its name and table, and the next one of the same sizes gets all
 * three addresses back (pymalloc's free lists), under another name. */
static void key_of(const struct py_layout *l, const uint8_t *raw, uintptr_t k[5])
{
    k[0] = load_ptr(raw, l->co_filename);
    k[1] = load_ptr(raw, l->co_qualname ? l->co_qualname : l->co_name);
    k[2] = load_ptr(raw, l->co_linetable);
    k[3] = (uintptr_t)(uint32_t)load_i32(raw, l->co_firstlineno);
    if (!k[1] || safe_read(&k[4], k[1] + l->str.length + 8, sizeof k[4]) != 0)
        k[4] = 0;
}

static int fill(const struct py_layout *l, uintptr_t addr, const uint8_t *raw,
                struct code_info *c)
{
    memset(c, 0, sizeof *c);
    c->addr = addr;
    key_of(l, raw, c->key);
    c->firstlineno = load_i32(raw, l->co_firstlineno);
    c->firsttraceable = l->co_firsttraceable ?
                        load_i32(raw, l->co_firsttraceable) : 0;
    c->filename = read_str(l, load_ptr(raw, l->co_filename));
    c->name = read_str(l, load_ptr(raw, l->co_name));
    c->qualname = l->co_qualname ? read_str(l, load_ptr(raw, l->co_qualname))
                                 : c->name;
    if (!c->filename || !c->name || !c->qualname ||
        read_table(l, load_ptr(raw, l->co_linetable), c) != 0) {
        drop(c);
        return -1;
    }
    callsite_build(l, addr, raw, &c->calls);
    c->last_lasti = -2;
    return 0;
}

struct code_info *codecache_peek(uintptr_t addr)
{
    struct code_info *set = table[set_of(addr)];
    for (unsigned w = 0; w < WAYS; w++)
        if (set[w].addr == addr) {
            set[w].pinned_tick = tick;
            return &set[w];
        }
    return NULL;
}

struct code_info *codecache_get(const struct py_layout *l, uintptr_t addr)
{
    uint8_t raw[512];
    uintptr_t type;
    if (l->co_read > sizeof raw || safe_read(raw, addr, l->co_read) != 0)
        return NULL;
    memcpy(&type, raw + l->ob_type, sizeof type);
    if (type != code_type)
        return NULL;
    uintptr_t k[5];
    key_of(l, raw, k);

    struct code_info *set = table[set_of(addr)];
    for (unsigned w = 0; w < WAYS; w++) {
        struct code_info *c = &set[w];
        if (c->addr == addr && memcmp(c->key, k, sizeof k) == 0) {
            c->pinned_tick = tick;
            c->lru = 1;
            set[w ^ 1].lru = 0;
            return c;
        }
    }
    /* Miss: replace a stale entry for this address, else the least
     * recently used way that is not in use by this sample. */
    struct code_info *victim = NULL;
    for (unsigned w = 0; w < WAYS && !victim; w++)
        if (set[w].addr == addr && set[w].pinned_tick != tick)
            victim = &set[w];
    for (unsigned w = 0; w < WAYS && !victim; w++)
        if (!set[w].lru && set[w].pinned_tick != tick)
            victim = &set[w];
    for (unsigned w = 0; w < WAYS && !victim; w++)
        if (set[w].pinned_tick != tick)
            victim = &set[w];
    if (!victim)
        return &unknown;
    if (victim->addr)
        drop(victim);
    if (fill(l, addr, raw, victim) != 0)
        return NULL;
    victim->pinned_tick = tick;
    victim->lru = 1;
    set[(victim - set) ^ 1].lru = 0;
    return victim;
}

int32_t codecache_line(const struct py_layout *l, const struct code_info *cc,
                       int32_t lasti)
{
    struct code_info *c = (struct code_info *)cc;
    if (c == &unknown || !c->linetable)
        return -1;
    if (lasti == c->last_lasti)
        return c->last_line;
    int32_t line = l->lines == LINES_310
        ? linetable_line_310(c->linetable, c->linetable_len, c->firstlineno, lasti)
        : linetable_line_311(c->linetable, c->linetable_len, c->firstlineno, lasti);
    c->last_lasti = lasti;
    c->last_line = line;
    return line;
}

void codecache_reset(void)
{
    for (unsigned s = 0; s < SETS; s++)
        for (unsigned w = 0; w < WAYS; w++)
            if (table[s][w].addr)
                drop(&table[s][w]);
}
