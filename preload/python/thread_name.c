/*
 * thread_name.c — a threading.Thread's name from memory (thread_name.h).
 *
 * threading starts every thread in Thread._bootstrap, which calls
 * self._bootstrap_inner(); so the outermost frames of such a thread hold
 * its Thread object as the first local, and its name is the object's
 * _name attribute (Thread.name reads and sets only that).  The attribute
 * is found as CPython finds it: in the instance's dict, or in the values
 * that 3.11+ keep beside the object for the keys its class shares.  The
 * main thread has no such frame: its Thread object is threading's
 * _main_thread, found through the interpreter's sys.modules.
 */
#include <string.h>

#include "guard/safe_read.h"
#include "pyprof/format.h"
#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/pystr.h"
#include "python/thread_name.h"

/* The outermost frames looked at: _bootstrap, _bootstrap_inner, and the
 * interpreter's own shim frames below them. */
#define BOTTOM 4
/* Entries of a dict read at a time, and looked at in all (a Thread has
 * about 15; sys.modules a few hundred). */
#define ENTRIES_MAX 64
#define ENTRIES_ALL 4096
/* PyModuleObject.md_dict: after the object's head in 3.10 to 3.15. */
#define MODULE_DICT 16

#define TPFLAGS_MANAGED_DICT  (1UL << 4)
#define TPFLAGS_INLINE_VALUES (1UL << 2)

static const struct py_layout *L;
static uintptr_t str_type, module_type;

/* A key looked for, the str object that was it when last seen (keys are
 * interned: one object for each), and the entry it was found at, looked
 * at first next time: sys.modules and threading's globals hold it where
 * it was, so that the main thread's name costs a few reads, not a scan
 * of a few hundred keys. */
struct key { const char *text; uintptr_t seen; unsigned at; };
static struct key k_name = { "_name", 0, 0 }, k_threading = { "threading", 0, 0 },
                  k_main = { "_main_thread", 0, 0 };

void thread_name_attach(const struct py_layout *l, uintptr_t str,
                        uintptr_t module)
{
    /* A free-threaded build keeps the managed dict elsewhere (one word
     * before the object) and none is at hand to check this against. */
    L = l->attr.fr_localsplus && l->gil != GIL_NONE ? l : NULL;
    str_type = str;
    module_type = module;
}

static uintptr_t ptr_at(uintptr_t addr, int *ok)
{
    uintptr_t v = 0;
    if (*ok && safe_read(&v, addr, sizeof v) != 0)
        *ok = 0;
    return v;
}

/* Whether the str at key is want's. */
static int is_key(uintptr_t key, struct key *want)
{
    if (!key)
        return 0;
    if (key == want->seen)
        return 1;
    int ok = 1;
    if (ptr_at(key + L->ob_type, &ok) != str_type || !ok)
        return 0;
    char s[16];
    size_t n = strlen(want->text);
    if (pystr_utf8(&L->str, safe_read, key, s, sizeof s) != (int)n ||
        strcmp(s, want->text))
        return 0;
    want->seen = key;
    return 1;
}

/* The index of want among the entries of keys (the first max of them),
 * and the value its entry holds (0 in a split table's keys), or -1. */
static int find_in_keys(uintptr_t keys, struct key *want, unsigned max,
                        uintptr_t *value)
{
    const struct attr_layout *a = &L->attr;
    uint8_t head[48];
    if (!keys || safe_read(head, keys, sizeof head) != 0)
        return -1;
    uint64_t nentries, entries;
    size_t esize, koff, voff;
    if (a->dict == DICT_310) {
        uint64_t size;
        memcpy(&size, head + 8, 8);
        memcpy(&nentries, head + 32, 8);
        if (!size || size & (size - 1) || size > (1u << 20))
            return -1;
        unsigned ix = size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
        entries = keys + 40 + size * ix;
        esize = 24; koff = 8; voff = 16;
    } else {
        uint8_t log2_index_bytes = head[9], kind = head[10];
        memcpy(&nentries, head + 24, 8);
        if (log2_index_bytes > 24)
            return -1;
        entries = keys + 32 + (1ULL << log2_index_bytes);
        int general = kind == 0;
        esize = general ? 24 : 16; koff = general ? 8 : 0; voff = general ? 16 : 8;
    }
    if (nentries > max)
        nentries = max;
    uint8_t e[ENTRIES_MAX * 24];
    if (want->seen && want->at < nentries &&
        safe_read(e, entries + want->at * esize, esize) == 0) {
        uintptr_t k;
        memcpy(&k, e + koff, sizeof k);
        if (k == want->seen) {
            memcpy(value, e + voff, sizeof *value);
            return (int)want->at;
        }
    }
    for (unsigned from = 0; from < nentries; from += ENTRIES_MAX) {
        unsigned n = nentries - from < ENTRIES_MAX ? (unsigned)(nentries - from)
                                                   : ENTRIES_MAX;
        if (safe_read(e, entries + from * esize, n * esize) != 0)
            return -1;
        for (unsigned i = 0; i < n; i++) {
            uintptr_t k;
            memcpy(&k, e + i * esize + koff, sizeof k);
            if (is_key(k, want)) {
                memcpy(value, e + i * esize + voff, sizeof *value);
                want->at = from + i;
                return (int)(from + i);
            }
        }
    }
    return -1;
}

/* want's value in a dict: its own entry, or its split values' slot. */
static uintptr_t dict_get(uintptr_t dict, struct key *want, unsigned max)
{
    int ok = 1;
    uintptr_t keys = ptr_at(dict + L->attr.dict_keys, &ok),
              values = ptr_at(dict + L->attr.dict_values, &ok), v = 0;
    int i = ok ? find_in_keys(keys, want, max, &v) : -1;
    if (i < 0)
        return 0;
    if (values)
        v = ptr_at(values + L->attr.values_header + 8 * (unsigned)i, &ok);
    return ok ? v : 0;
}

/* _name of values laid out by the keys the type shares. */
static uintptr_t from_values(uintptr_t type, uintptr_t values)
{
    int ok = 1;
    uintptr_t keys = ptr_at(type + L->attr.ht_cached_keys, &ok), unused;
    int i = ok ? find_in_keys(keys, &k_name, ENTRIES_MAX, &unused) : -1;
    if (i < 0)
        return 0;
    uintptr_t v = ptr_at(values + L->attr.values_header + 8 * (unsigned)i, &ok);
    return ok ? v : 0;
}

/* The object's _name attribute from its instance storage, or 0. */
static uintptr_t attr_name(uintptr_t obj)
{
    const struct attr_layout *a = &L->attr;
    int ok = 1;
    uintptr_t type = ptr_at(obj + L->ob_type, &ok);
    uint64_t flags = ptr_at(type + a->tp_flags, &ok);
    int64_t dictoffset = (int64_t)ptr_at(type + a->tp_dictoffset, &ok);
    uint64_t basicsize = ptr_at(type + a->tp_basicsize, &ok);
    if (!ok)
        return 0;
    switch (a->inst) {
    case INST_DICTOFFSET:
        if (dictoffset <= 0 || dictoffset > 4096)
            return 0;
        return dict_get(ptr_at(obj + (uint64_t)dictoffset, &ok), &k_name, ENTRIES_MAX);
    case INST_MANAGED_311: {
        if (!(flags & TPFLAGS_MANAGED_DICT))
            return 0;
        uintptr_t values = ptr_at(obj - 32, &ok), dict = ptr_at(obj - 24, &ok);
        return !ok ? 0 : values ? from_values(type, values) : dict ? dict_get(dict, &k_name, ENTRIES_MAX) : 0;
    }
    case INST_MANAGED_312: {
        if (!(flags & TPFLAGS_MANAGED_DICT))
            return 0;
        uintptr_t dv = ptr_at(obj - 24, &ok);
        return !ok || !dv ? 0 : (dv & 1) ? from_values(type, dv + 1) : dict_get(dv, &k_name, ENTRIES_MAX);
    }
    case INST_INLINE_313: {
        if (!(flags & TPFLAGS_MANAGED_DICT))
            return 0;
        if (flags & TPFLAGS_INLINE_VALUES && basicsize >= 16 && basicsize < 4096) {
            uint8_t valid = 0;
            if (safe_read(&valid, obj + basicsize + 3, 1) != 0)
                return 0;
            if (valid)
                return from_values(type, obj + basicsize);
        }
        uintptr_t dict = ptr_at(obj - 24, &ok);
        return ok && dict ? dict_get(dict, &k_name, ENTRIES_MAX) : 0;
    }
    }
    return 0;
}

/* Whether frame f runs threading's Thread._bootstrap_inner. */
static int is_bootstrap_inner(uintptr_t code)
{
    const struct code_info *c = code ? codecache_get(L, code) : NULL;
    if (!c || !c->name || !c->filename || strcmp(c->name, "_bootstrap_inner"))
        return 0;
    size_t n = strlen(c->filename);
    return n >= 12 && !strcmp(c->filename + n - 12, "threading.py");
}

/* The name of threading's _main_thread in the interpreter of tstate. */
static int main_thread_name(uintptr_t tstate, char *out, size_t cap)
{
    int ok = 1;
    if (!L->is_modules || !module_type)
        return -1;
    uintptr_t interp = ptr_at(tstate + L->ts_interp, &ok);
    uintptr_t modules = interp ? ptr_at(interp + L->is_modules, &ok) : 0;
    uintptr_t mod = ok && modules ? dict_get(modules, &k_threading, ENTRIES_ALL) : 0;
    if (!mod || ptr_at(mod + L->ob_type, &ok) != module_type || !ok)
        return -1;
    uintptr_t globals = ptr_at(mod + MODULE_DICT, &ok);
    uintptr_t obj = ok && globals ? dict_get(globals, &k_main, ENTRIES_ALL) : 0;
    uintptr_t name = obj ? attr_name(obj) : 0;
    if (!name || ptr_at(name + L->ob_type, &ok) != str_type || !ok)
        return -1;
    return pystr_utf8(&L->str, safe_read, name, out, cap);
}

int thread_name_read(uintptr_t tstate, int main_thread, char *out, size_t cap)
{
    if (!L || cap < 8)
        return -1;
    if (main_thread)
        return main_thread_name(tstate, out, cap);
    int ok = 1;
    uintptr_t f = ptr_at(tstate + L->ts_frame, &ok);
    if (L->ts_frame_kind == TS_FRAME_CFRAME && f)
        f = ptr_at(f + L->cframe_current, &ok);
    /* The last BOTTOM frames of the chain, outermost last. */
    uintptr_t ring[BOTTOM] = { 0 }, code[BOTTOM] = { 0 };
    unsigned n = 0;
    for (; f && ok && n < PP_MAX_DEPTH * 2; n++) {
        ring[n % BOTTOM] = f;
        code[n % BOTTOM] = ptr_at(f + L->fr_code, &ok) & ~L->code_tag_mask;
        f = ptr_at(f + L->fr_previous, &ok);
    }
    if (!ok || f)
        return -1;
    for (unsigned k = 0; k < BOTTOM && k < n; k++) {
        unsigned j = (n - 1 - k) % BOTTOM;
        if (!is_bootstrap_inner(code[j]))
            continue;
        uintptr_t self = ptr_at(ring[j] + L->attr.fr_localsplus, &ok) & ~L->code_tag_mask;
        uintptr_t name = ok && self ? attr_name(self) : 0;
        if (!name || ptr_at(name + L->ob_type, &ok) != str_type || !ok)
            return -1;
        return pystr_utf8(&L->str, safe_read, name, out, cap);
    }
    return -1;
}
