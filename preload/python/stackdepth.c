/*
 * stackdepth.c — the depth of a code object's value stack at each of its
 * calls (stackdepth.h).
 */
#include <stdlib.h>
#include <string.h>

#include "guard/safe_read.h"
#include "python/layout/layout.h"
#include "python/stackdepth.h"

#define MAX_UNITS  (1u << 16)   /* as callsite.c: larger code is not read */
#define MAX_EXC    (1u << 16)   /* bytes of exception table               */
#define MAX_PASSES 64           /* each pass in code order; a loop's head is
                                   reached before its back edge, so two or
                                   three passes settle real code          */
#define NO_DEPTH   (-1)

/* The effect of an instruction of family op with argument oparg. */
static int64_t effect(const struct stack_op *op, uint32_t oparg)
{
    int64_t c = op->push, n = oparg;
    switch (op->flags & SE_FORM) {
    case SE_CONST:      return c;
    case SE_MINUS_N:    return c - n;
    case SE_MINUS_2N:   return c - 2 * n;
    case SE_PLUS_N:     return c + n;
    case SE_PLUS_BIT0:  return c + (n & 1);
    case SE_MINUS_BIT0: return c - (n & 1);
    case SE_UNPACK_EX:  return c + (n & 0xff) + (n >> 8);
    }
    return -(1LL << 40);          /* no form: below any depth */
}

struct flow {
    int32_t *depth;               /* per code unit; NO_DEPTH: not reached */
    uint8_t *start;               /* 1 where an instruction starts        */
    uint32_t units;
    int64_t max;
    int changed;
};

/* Gives the instruction at unit t the depth d; 0 when that contradicts
 * what it has or cannot be. */
static int reach(struct flow *f, uint64_t t, int64_t d)
{
    if (t >= f->units || !f->start[t] || d < 0 || d > f->max)
        return 0;
    if (f->depth[t] == NO_DEPTH) {
        f->depth[t] = (int32_t)d;
        f->changed = 1;
        return 1;
    }
    return f->depth[t] == d;
}

/* One varint of the exception table: six bits a byte, most significant
 * first, 0x40 where another byte follows (0x80 marks an entry's first
 * byte).  -1 past the end. */
static int64_t varint(const uint8_t *p, uint32_t len, uint32_t *at)
{
    if (*at >= len)
        return -1;
    uint8_t b = p[(*at)++];
    uint64_t v = b & 63;
    while (b & 64) {
        if (*at >= len || v > (1u << 26))
            return -1;
        b = p[(*at)++];
        v = v << 6 | (b & 63);
    }
    return (int64_t)v;
}

/* Each handler starts with the stack cut to the entry's depth, then the
 * offset of the raising instruction if the entry says so, then the
 * exception. */
static int handlers(struct flow *f, const uint8_t *exc, uint32_t len)
{
    uint32_t at = 0;
    while (at < len) {
        if (!(exc[at] & 0x80))
            return 0;
        int64_t start = varint(exc, len, &at), size = varint(exc, len, &at),
                target = varint(exc, len, &at), dl = varint(exc, len, &at);
        if (start < 0 || size < 0 || target < 0 || dl < 0)
            return 0;
        if (!reach(f, (uint64_t)target, (dl >> 1) + (dl & 1) + 1))
            return 0;
    }
    return 1;
}

struct call_depths *stackdepth_from(const struct py_layout *l,
                                    const uint16_t *code, uint32_t units,
                                    const uint8_t *exc, uint32_t exc_len,
                                    uint32_t stacksize, uint32_t nlocalsplus)
{
    const struct stack_table *tab = l->stack;
    if (!tab || !l->opcodes || !units || units > MAX_UNITS ||
        stacksize > UINT16_MAX)
        return NULL;
    struct flow f = { .units = units, .max = stacksize };
    f.depth = malloc((size_t)units * (sizeof *f.depth + sizeof(uint32_t)));
    f.start = calloc(units, 1);
    struct call_depths *d = NULL;
    if (!f.depth || !f.start)
        goto out;
    uint32_t *arg = (uint32_t *)(f.depth + units);

    /* Where each instruction starts, and its argument with its
     * EXTENDED_ARG prefixes (each an instruction of its own). */
    uint32_t ext = 0, ncalls = 0;
    for (uint32_t i = 0; i < units; ) {
        uint8_t op = code[i] & 0xff;
        const struct stack_op *so = &tab->op[op];
        uint32_t size = l->opcodes[op] & OP_SIZE;
        if (!so->flags || !size || i + size > units)
            goto out;
        arg[i] = ext | code[i] >> 8;
        ext = so->base == tab->extended_arg ? arg[i] << 8 : 0;
        if (ext >> 24)
            goto out;
        f.start[i] = 1;
        f.depth[i] = NO_DEPTH;
        ncalls += so->base == tab->call || so->base == tab->call_kw ||
                  so->base == tab->call_ex;
        i += size;
    }

    f.depth[0] = 0;
    if (!handlers(&f, exc, exc_len))
        goto out;
    int pass = 0;
    do {
        if (++pass > MAX_PASSES)
            goto out;
        f.changed = 0;
        for (uint32_t i = 0; i < units; ) {
            uint8_t op = code[i] & 0xff;
            const struct stack_op *so = &tab->op[op];
            uint32_t next = i + (l->opcodes[op] & OP_SIZE);
            if (f.depth[i] == NO_DEPTH) {
                i = next;
                continue;
            }
            int64_t after = f.depth[i] + effect(so, arg[i]);
            if (after < 0 || after > f.max)
                goto out;
            if (!(so->flags & SF_STOP) && next < units &&
                !reach(&f, next, after))
                goto out;
            if ((so->flags & SF_FWD) && !reach(&f, (uint64_t)next + arg[i], after))
                goto out;
            if ((so->flags & SF_BACK) &&
                (arg[i] > next || !reach(&f, next - arg[i], after)))
                goto out;
            i = next;
        }
    } while (f.changed);

    d = malloc(sizeof *d + (size_t)ncalls * sizeof d->site[0]);
    if (!d)
        goto out;
    d->nlocalsplus = nlocalsplus;
    d->n = 0;
    for (uint32_t i = 0; i < units; i++) {
        if (!f.start[i] || f.depth[i] == NO_DEPTH)
            continue;
        uint8_t base = tab->op[code[i] & 0xff].base;
        uint8_t kind = base == tab->call ? CS_CALL :
                       base == tab->call_kw ? CS_CALL_KW :
                       base == tab->call_ex ? CS_CALL_EX : 0;
        if (kind)
            d->site[d->n++] = (struct call_site){
                .unit = i, .oparg = arg[i], .depth = (uint16_t)f.depth[i],
                .kind = kind };
    }
out:
    free(f.depth);
    free(f.start);
    return d;
}

struct call_depths *stackdepth_build(const struct py_layout *l, uintptr_t addr)
{
    if (!l->stack)
        return NULL;
    int64_t units;
    int32_t stacksize, nlocalsplus;
    uintptr_t exc_obj;
    int64_t exc_len;
    if (safe_read(&units, addr + l->co_units, sizeof units) != 0 ||
        safe_read(&stacksize, addr + l->co_stacksize, sizeof stacksize) != 0 ||
        safe_read(&nlocalsplus, addr + l->co_nlocalsplus,
                  sizeof nlocalsplus) != 0 ||
        safe_read(&exc_obj, addr + l->co_exceptiontable, sizeof exc_obj) != 0 ||
        !exc_obj ||
        safe_read(&exc_len, exc_obj + l->bytes_size, sizeof exc_len) != 0)
        return NULL;
    if (units <= 0 || units > MAX_UNITS || stacksize < 0 || nlocalsplus < 0 ||
        nlocalsplus > (1 << 20) || exc_len < 0 || exc_len > MAX_EXC)
        return NULL;
    uint16_t *code = malloc((size_t)units * sizeof *code + (size_t)exc_len + 1);
    struct call_depths *d = NULL;
    if (!code)
        return NULL;
    uint8_t *exc = (uint8_t *)(code + units);
    if (safe_read(code, addr + l->co_code_adaptive,
                  (size_t)units * sizeof *code) == 0 &&
        (!exc_len || safe_read(exc, exc_obj + l->bytes_data, (size_t)exc_len) == 0))
        d = stackdepth_from(l, code, (uint32_t)units, exc, (uint32_t)exc_len,
                            (uint32_t)stacksize, (uint32_t)nlocalsplus);
    free(code);
    return d;
}

const struct call_site *stackdepth_site(const struct call_depths *d,
                                        uint32_t unit)
{
    uint32_t lo = 0, hi = d->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d->site[mid].unit < unit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n && d->site[lo].unit == unit ? &d->site[lo] : NULL;
}
