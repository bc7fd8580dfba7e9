/*
 * test_thread_name.c — a threading.Thread's name read from memory
 * (python/thread_name.h), from threads forged in this process as the
 * 3.10, 3.11, 3.12 and 3.13+ layouts lay them out: a thread state, its
 * frames down to Thread._bootstrap_inner, the Thread object as that
 * frame's first local, and its _name in each way an instance keeps its
 * attributes (a dict at tp_dictoffset, values beside the object, tagged
 * values, inline values, a dict made later).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "guard/safe_read.h"
#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/thread_name.h"

#include "forged_objects.h"

/* Keys holding "_target" then "_name" (the name's entry is index 1), in
 * the layout's format; general: 24-byte entries with hashes (a dict's own
 * keys) rather than 16-byte unicode ones (a class's shared keys). */
static uint8_t *keys(int general, uintptr_t name_value)
{
    uint8_t *k = block(512);
    uintptr_t key[2] = { (uintptr_t)str("_target"), (uintptr_t)str("_name") };
    size_t entries, esize = 24, koff = 8;
    if (L->attr.dict == DICT_310) {
        put(k, 8, 8);                       /* dk_size */
        put(k, 32, 2);                      /* dk_nentries */
        entries = 40 + 8;                   /* 8 one-byte indices */
    } else {
        k[8] = 3;                           /* dk_log2_size */
        k[9] = 3;                           /* dk_log2_index_bytes */
        k[10] = general ? 0 : 1;            /* dk_kind */
        put(k, 24, 2);                      /* dk_nentries */
        entries = 32 + 8;
        if (!general) {
            esize = 16;
            koff = 0;
        }
    }
    for (int i = 0; i < 2; i++)
        put(k, (long)(entries + i * esize + koff), key[i]);
    put(k, (long)(entries + esize + koff + 8), name_value);   /* value */
    return k;
}

/* Values for a split table: slot 1 is the name. */
static uint8_t *values(uintptr_t name_value)
{
    uint8_t *v = block(64);
    v[3] = 1;                                /* 3.13+: valid */
    put(v, L->attr.values_header + 8, name_value);
    return v;
}

static uint8_t *dict(uint8_t *k, uint8_t *v)
{
    uint8_t *d = block(64);
    put(d, L->attr.dict_keys, (uintptr_t)k);
    put(d, L->attr.dict_values, (uintptr_t)v);
    return d;
}

/* A Thread's class: flags, dict offset, and shared keys. */
static uint8_t *type(uint64_t flags, long dictoffset, long basicsize, uint8_t *shared)
{
    uint8_t *t = block(1024);
    put(t, L->attr.tp_flags, flags);
    put(t, L->attr.tp_dictoffset, (uintptr_t)dictoffset);
    put(t, L->attr.tp_basicsize, (uintptr_t)basicsize);
    put(t, L->attr.ht_cached_keys, (uintptr_t)shared);
    return t;
}

/* A thread state whose frames are run > _bootstrap_inner(self) >
 * _bootstrap, innermost first. */
static uintptr_t thread(uint8_t *self)
{
    const char *file = "/usr/lib/python3/threading.py";
    uint8_t *f[3] = { block(512), block(512), block(512) };
    const char *names[3] = { "run", "_bootstrap_inner", "_bootstrap" };
    for (int i = 0; i < 3; i++) {
        put(f[i], L->fr_code, (uintptr_t)code(names[i], file));
        put(f[i], L->fr_previous, i < 2 ? (uintptr_t)f[i + 1] : 0);
    }
    put(f[1], L->attr.fr_localsplus, (uintptr_t)self);
    uint8_t *ts = block(1024);
    if (L->ts_frame_kind == TS_FRAME_CFRAME) {
        uint8_t *cf = block(64);
        put(cf, L->cframe_current, (uintptr_t)f[0]);
        put(ts, L->ts_frame, (uintptr_t)cf);
    } else {
        put(ts, L->ts_frame, (uintptr_t)f[0]);
    }
    return (uintptr_t)ts;
}

static void use(const struct py_layout *l)
{
    cr_assert(safe_read_init() == 0);
    memset(pool, 0, sizeof pool);
    used = 0;
    L = l;
    codecache_reset();
    codecache_types((uintptr_t)&code_type, (uintptr_t)&str_type, (uintptr_t)&bytes_type);
    codecache_new_tick();
    thread_name_attach(l, (uintptr_t)&str_type, 0);
}

static void expect_name(uintptr_t ts, const char *want)
{
    char got[64];
    int n = thread_name_read(ts, 0, got, sizeof got);
    cr_assert_eq(n, (int)strlen(want), "3.%d: read %d bytes", L->minor, n);
    cr_expect_str_eq(got, want);
}

#define MANAGED_DICT  (1u << 4)
#define INLINE_VALUES (1u << 2)

Test(thread_name, a_310_thread_s_dict_at_tp_dictoffset)
{
    use(&py310_layout);
    uint8_t *self = block(64), *name = str("worker-310");
    put(self, L->ob_type, (uintptr_t)type(0, 16, 32, NULL));
    put(self, 16, (uintptr_t)dict(keys(1, (uintptr_t)name), NULL));
    expect_name(thread(self), "worker-310");
}

Test(thread_name, a_311_thread_s_values_beside_it_and_its_dict_made_later)
{
    use(&py311_layout);
    uint8_t *self = block(64), *name = str("worker-311");
    put(self, L->ob_type, (uintptr_t)type(MANAGED_DICT, -1, 16, keys(0, 0)));
    put(self, -32, (uintptr_t)values((uintptr_t)name));
    expect_name(thread(self), "worker-311");
    put(self, -32, 0);
    put(self, -24, (uintptr_t)dict(keys(1, (uintptr_t)str("made-later")), NULL));
    expect_name(thread(self), "made-later");
}

Test(thread_name, a_312_thread_s_tagged_values_or_dict)
{
    use(&py312_layout);
    uint8_t *self = block(64), *name = str("renamed-thread-312");
    put(self, L->ob_type, (uintptr_t)type(MANAGED_DICT, -1, 16, keys(0, 0)));
    put(self, -24, (uintptr_t)values((uintptr_t)name) - 1);
    expect_name(thread(self), "renamed-thread-312");
    /* a split dict: its keys are the class's, its values its own */
    put(self, -24, (uintptr_t)dict(keys(0, 0), values((uintptr_t)str("split"))));
    expect_name(thread(self), "split");
}

Test(thread_name, a_313_thread_s_inline_values_while_valid)
{
    struct py_layout l = py312_layout;
    l.attr.inst = INST_INLINE_313;
    l.attr.values_header = 8;
    use(&l);
    uint8_t *self = block(128), *name = str("inline-313");
    put(self, L->ob_type, (uintptr_t)type(MANAGED_DICT | INLINE_VALUES, -1, 16, keys(0, 0)));
    uint8_t *v = values((uintptr_t)name);
    memcpy(self + 16, v, 24);
    expect_name(thread(self), "inline-313");
    self[16 + 3] = 0;                /* no longer valid: the dict holds them */
    put(self, -24, (uintptr_t)dict(keys(1, (uintptr_t)str("in-the-dict")), NULL));
    expect_name(thread(self), "in-the-dict");
}

Test(thread_name, a_thread_without_bootstrap_inner_or_with_garbage_has_none)
{
    use(&py312_layout);
    uint8_t *self = block(64);
    put(self, L->ob_type, (uintptr_t)type(MANAGED_DICT, -1, 16, keys(0, 0)));
    put(self, -24, (uintptr_t)values((uintptr_t)str("x")) - 1);
    uintptr_t ts = thread(self);
    char got[64];
    /* _name that is not a str */
    put(self, -24, (uintptr_t)values((uintptr_t)self) - 1);
    cr_expect_eq(thread_name_read(ts, 0, got, sizeof got), -1);
    /* an instance storage pointing nowhere */
    put(self, -24, 0x10);
    cr_expect_eq(thread_name_read(ts, 0, got, sizeof got), -1);
    /* no such frame: a thread state with one frame of other code */
    uint8_t *f = block(512), *t2 = block(1024), *cf = block(64);
    put(f, L->fr_code, (uintptr_t)code("main", "/app/main.py"));
    put(cf, L->cframe_current, (uintptr_t)f);
    put(t2, L->ts_frame, (uintptr_t)cf);
    cr_expect_eq(thread_name_read((uintptr_t)t2, 0, got, sizeof got), -1);
    /* a frame chain that loops */
    put(f, L->fr_previous, (uintptr_t)f);
    cr_expect_eq(thread_name_read((uintptr_t)t2, 0, got, sizeof got), -1);
}
