/*
 * stackdepth.h — the depth of a code object's value stack at each of its
 * calls (3.14+), worked out from its bytecode and exception table once,
 * when a frame of it is first found standing on a call (python/ccall.c).
 *
 * The compiler gives every instruction one stack depth, whatever the
 * path that reaches it, and the interpreter keeps to it: so the depth is
 * found by following the code from its first instruction and from each
 * exception handler (at the depth the exception table gives), with each
 * opcode's effect from layout/stack_effects.c.  Two paths that disagree,
 * a depth below 0 or above the code's stack size, or an opcode the table
 * does not know (sys.monitoring's instrumented copies, an optimizer's
 * executor) leave the code object without depths: nothing is guessed.
 */
#ifndef PYPROF_STACKDEPTH_H
#define PYPROF_STACKDEPTH_H

#include <stdint.h>

struct py_layout;

enum call_kind { CS_CALL = 1, CS_CALL_KW, CS_CALL_EX };

struct call_site {
    uint32_t unit;       /* the call instruction's code unit (after any
                            EXTENDED_ARG)                                 */
    uint32_t oparg;
    uint16_t depth;      /* the stack's depth as the instruction starts   */
    uint8_t kind;        /* enum call_kind                                */
};

struct call_depths {
    uint32_t nlocalsplus;    /* fast locals, cells and free variables:
                                the stack starts after them              */
    uint32_t n;
    struct call_site site[]; /* by unit, ascending                       */
};

/* The depths of the code object at addr, malloc'd; NULL when they
 * cannot be known. */
struct call_depths *stackdepth_build(const struct py_layout *l, uintptr_t addr);

/* The same from bytecode and exception table already in memory. */
struct call_depths *stackdepth_from(const struct py_layout *l,
                                    const uint16_t *code, uint32_t units,
                                    const uint8_t *exc, uint32_t exc_len,
                                    uint32_t stacksize, uint32_t nlocalsplus);

/* The call instruction at code unit unit, or NULL. */
const struct call_site *stackdepth_site(const struct call_depths *d,
                                        uint32_t unit);

#endif
