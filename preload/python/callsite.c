/*
 * callsite.c — the maps of where a frame can stand with a callee pushed
 * inline, or with a generator it resumed through C code (callsite.h),
 * built once per code object from its bytecode.
 *
 * The bytecode read is the specialized one the interpreter runs; a
 * specialized instruction keeps its family's size, and only its own
 * family's variants replace it, so a map built at first sight holds for
 * the code object's life.  The whole instruction, its inline cache
 * entries included, is marked: the interpreter leaves the instruction
 * pointer on the instruction's last cache entry when it pushes the callee.
 * 3.10 runs its bytecode (co_code) as compiled, and leaves f_lasti on an
 * instruction's first EXTENDED_ARG: the prefixes are marked with it.
 */
#include <stdlib.h>
#include <string.h>

#include "guard/safe_read.h"
#include "python/callsite.h"
#include "python/layout/layout.h"

#define MAX_UNITS (1u << 16)    /* 128 KiB of bytecode: a larger code object
                                   is not checked */

void callsite_build_from(const struct py_layout *l, const uint16_t *code,
                         uint32_t units, struct callsite_map *m)
{
    m->bits = NULL;
    m->resumes = NULL;
    m->units = 0;
    if (!l->opcodes || !units || units > MAX_UNITS)
        return;
    size_t half = (units + 7) / 8;
    uint8_t *bits = calloc(2 * half, 1);
    if (!bits)
        return;
    uint8_t *resumes = bits + half;
    uint32_t from = 0;        /* where the instruction's prefixes start */
    for (uint32_t i = 0; i < units; ) {
        /* A code unit is (opcode, oparg), opcode in its low byte. */
        uint8_t op = l->opcodes[code[i] & 0xff];
        uint32_t size = op & OP_SIZE;
        if (!size || i + size > units) {
            free(bits);            /* unknown opcode or misaligned: */
            return;                /* rule nothing out              */
        }
        if (!l->op_prefix || i == 0 || (code[i - 1] & 0xff) != l->op_prefix)
            from = i;
        if ((op & OP_INLINE) ||
            ((op & OP_INLINE_SUBSCR) && code[i] >> 8 == l->nb_subscr))
            for (uint32_t k = from; k < i + size; k++)
                bits[k >> 3] |= (uint8_t)(1u << (k & 7));
        if (op & OP_RESUMES)
            for (uint32_t k = from; k < i + size; k++)
                resumes[k >> 3] |= (uint8_t)(1u << (k & 7));
        i += size;
    }
    m->bits = bits;
    m->resumes = resumes;
    m->units = units;
}

void callsite_build(const struct py_layout *l, uintptr_t addr,
                    const uint8_t *raw, struct callsite_map *m)
{
    int64_t units;
    m->bits = NULL;
    m->resumes = NULL;
    m->units = 0;
    if (!l->opcodes)
        return;
    uintptr_t at = addr + l->co_code_adaptive;
    if (l->co_code) {
        /* 3.10: a bytes object, its size in bytes. */
        memcpy(&at, raw + l->co_code, sizeof at);
        if (!at || safe_read(&units, at + l->bytes_size, sizeof units) != 0 ||
            units % 2)
            return;
        units /= 2;
        at += l->bytes_data;
    } else {
        memcpy(&units, raw + l->co_units, sizeof units);
    }
    if (units <= 0 || units > MAX_UNITS)
        return;
    uint16_t *code = malloc((size_t)units * sizeof *code);
    if (code && safe_read(code, at, (size_t)units * sizeof *code) == 0)
        callsite_build_from(l, code, (uint32_t)units, m);
    free(code);
}

void callsite_free(struct callsite_map *m)
{
    free(m->bits);
    m->bits = NULL;
    m->resumes = NULL;
    m->units = 0;
}
