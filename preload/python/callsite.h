/*
 * callsite.h — where in its code a frame can stand while the interpreter
 * runs a Python callee it pushed inline.
 *
 * Every instruction writes the frame's instruction pointer (3.10: its
 * f_lasti), and a caller whose callee was pushed by the caller's own
 * instruction (a call, a subscript or attribute that runs Python code, a
 * generator resumed by for, yield from or await) stands on that
 * instruction for as long as the callee lives.  A stack whose caller stands anywhere else
 * joins two moments: the callee read before it returned, the caller read
 * after it had moved on (pyprof(7), "Consistent stacks").
 */
#ifndef PYPROF_CALLSITE_H
#define PYPROF_CALLSITE_H

#include <stdint.h>

struct py_layout;

/* One bit per code unit of a code object: set where a frame of it can
 * stand with a callee pushed inline (bits), or with a generator it
 * resumed through C code (resumes: OP_RESUMES in the layout's table). */
struct callsite_map {
    uint8_t *bits;          /* NULL: not known, nothing is ruled out */
    uint8_t *resumes;       /* allocated with bits, its second half  */
    uint32_t units;
};

/* Builds the map of the code object whose header (l->co_read bytes) is
 * raw, from its bytecode read at addr + l->co_code_adaptive (3.10: the
 * bytes object at l->co_code).  Leaves
 * m->bits NULL where the layout has no opcode table, or the bytecode is
 * unreadable, too large, or holds an opcode the table does not know. */
void callsite_build(const struct py_layout *l, uintptr_t addr,
                    const uint8_t *raw, struct callsite_map *m);

/* Builds the map from bytecode already in memory (units code units). */
void callsite_build_from(const struct py_layout *l, const uint16_t *code,
                         uint32_t units, struct callsite_map *m);

/* Whether a frame standing at code unit lasti can have a callee pushed
 * inline: 1 also when the map is not known. */
static inline int callsite_can_call(const struct callsite_map *m, int32_t lasti)
{
    if (!m->bits)
        return 1;
    if (lasti < 0 || (uint32_t)lasti >= m->units)
        return 0;
    return m->bits[lasti >> 3] >> (lasti & 7) & 1;
}

/* Whether a frame standing at code unit lasti can have a generator it
 * resumed through C code running above it: 1 also when the map is not
 * known. */
static inline int callsite_can_resume(const struct callsite_map *m,
                                      int32_t lasti)
{
    if (!m->resumes)
        return 1;
    if (lasti < 0 || (uint32_t)lasti >= m->units)
        return 0;
    return m->resumes[lasti >> 3] >> (lasti & 7) & 1;
}

void callsite_free(struct callsite_map *m);

#endif
