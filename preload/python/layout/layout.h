/*
 * layout.h — where CPython keeps what the sampler reads, for one layout
 * family.  Exactly one struct py_layout is chosen at start-up (detect.c);
 * the walker then reads offsets from it and branches only on the few
 * family kinds below, never on a version number.
 *
 *   py310.c          3.10   static table (verified against 3.10.13 headers)
 *   py311.c          3.11   static table (3.11.7 headers)
 *   py312.c          3.12   static table (3.12.1 headers)
 *   debug_offsets.c  3.13-3.15  built from the runtime's own _Py_DebugOffsets,
 *                           with one mirror of that struct per minor
 *   opcodes.c        3.10-3.15  opcode sizes and the families that call
 *   stack_effects.c  3.14-3.15  each opcode's family, stack effect and jump,
 *                           for the depth of a frame's stack at its calls
 */
#ifndef PYPROF_LAYOUT_H
#define PYPROF_LAYOUT_H

#include <stdint.h>

#include "python/pystr.h"

enum frame_kind {
    FRAMES_OBJECTS,      /* 3.10: PyFrameObject chain, f_lasti in code units */
    FRAMES_INTERP,       /* 3.11+: _PyInterpreterFrame chain, instruction ptr */
};

enum tstate_frame_kind {
    TS_FRAME_DIRECT,     /* tstate->frame / tstate->current_frame            */
    TS_FRAME_CFRAME,     /* 3.11/3.12: tstate->cframe->current_frame         */
};

enum gil_kind {
    GIL_RUNTIME_TSTATE,  /* 3.10/3.11: _PyRuntime.gilstate.tstate_current    */
    GIL_STRUCT_PTR,      /* 3.12+: interp->ceval.gil -> {last_holder, locked} */
    GIL_NONE,            /* free-threaded: no GIL to hold                    */
};

enum line_kind {
    LINES_310,           /* (byte delta, line delta) pairs                   */
    LINES_311,           /* location table                                   */
};

/* 3.12: where a thread stopped with its current-frame pointer naming a
 * generator frame that is not running (no caller link) keeps what names
 * its innermost frame (python/resumer.c).  Zero in other layouts: the
 * family that has it fills ts_exc_info. */
struct resumer_layout {
    uint32_t ts_exc_info;        /* PyThreadState.exc_info                  */
    uint32_t ts_exc_state;       /* PyThreadState.exc_state: no generator   */
    uint32_t ts_datastack_chunk; /* the data stack's current chunk          */
    uint32_t ts_datastack_top;
    uint32_t chunk_previous;     /* _PyStackChunk                            */
    uint32_t chunk_size;
    uint32_t chunk_data;
    uint32_t gen_exc_state;      /* the common head of generators,          */
    uint32_t gen_frame_state;    /* coroutines and async generators         */
    uint32_t gen_iframe;
    uint32_t exc_previous;       /* _PyErr_StackItem.previous_item          */
    uint32_t co_framesize;       /* int, in pointer-sized words              */
    int8_t executing;            /* gi_frame_state of a running generator   */
    uint8_t owned_by_thread;     /* frame owner: on the data stack          */
    uint8_t owned_by_generator;  /* frame owner: inside a generator         */
};

/* Where a thread state says whether an exception is being raised or
 * handled (PP_SAMPLE_EXCEPTION).  ts_current 0: not known. */
struct exc_layout {
    uint32_t ts_current;         /* current_exception (3.12+), curexc_type */
    uint32_t ts_exc_info;        /* _PyErr_StackItem *: the innermost handler */
    uint32_t item_value;         /* _PyErr_StackItem.exc_value              */
    uint32_t item_previous;      /* _PyErr_StackItem.previous_item          */
};

/* What reading asyncio's tasks needs of the runtime (python/
 * asyncio_tasks.c); the tasks' own layout is the _asyncio module's debug
 * section, found at run time.  gen_iframe 0: not read (before 3.14, and
 * free-threaded builds). */
struct task_layout {
    uint32_t gen_iframe;         /* a coroutine's frame, inside the object   */
    uint32_t gen_frame_state;    /* int8_t gi_frame_state                    */
    uint32_t fr_stackpointer;    /* _PyInterpreterFrame.stackpointer         */
    int8_t awaiting;             /* FRAME_SUSPENDED_YIELD_FROM               */
    int8_t awaiting_locked;      /* 3.15: ..._LOCKED, else the same          */
    int8_t executing;            /* FRAME_EXECUTING                          */
};

/* Per opcode (stack_effects.c): its family, how it changes the depth of
 * the value stack, and where control goes after it (python/stackdepth.c).
 * flags 0: an opcode the table does not know. */
enum stack_form {
    SE_CONST = 1,        /* push                                          */
    SE_MINUS_N,          /* push - oparg                                  */
    SE_MINUS_2N,         /* push - 2 * oparg                              */
    SE_PLUS_N,           /* push + oparg                                  */
    SE_PLUS_BIT0,        /* push + (oparg & 1)                            */
    SE_MINUS_BIT0,       /* push - (oparg & 1)                            */
    SE_UNPACK_EX,        /* push + (oparg & 0xff) + (oparg >> 8)          */
};
#define SE_FORM  0x07
#define SF_FWD   0x08    /* also jumps oparg units past the instruction   */
#define SF_BACK  0x10    /* also jumps oparg units back from its end      */
#define SF_STOP  0x20    /* never falls through to the next instruction   */
struct stack_op {
    uint8_t base;        /* the family's (unspecialized) opcode           */
    int8_t push;
    uint8_t flags;       /* stack_form | SF_*                             */
};
struct stack_table {
    uint8_t extended_arg, call, call_kw, call_ex;
    struct stack_op op[256];
};
extern const struct stack_table stack_314, stack_315;

/* How an instance keeps its attributes, and what a dict is like: for
 * reading the name of a threading.Thread (python/thread_name.c). */
enum inst_kind {
    INST_DICTOFFSET,     /* 3.10: the dict at tp_dictoffset                   */
    INST_MANAGED_311,    /* 3.11: values at -4 words, dict at -3              */
    INST_MANAGED_312,    /* 3.12: -3 words: dict, or values tagged (bit 0)    */
    INST_INLINE_313,     /* 3.13+: values after the object while valid,
                            else the dict at -3 words                         */
};
enum dict_kind {
    DICT_310,            /* keys: dk_size, dk_nentries; 24-byte entries       */
    DICT_311,            /* keys: log2 sizes, kind; 16-byte unicode entries   */
};
struct attr_layout {
    uint32_t fr_localsplus;      /* a frame's first local (fast locals)      */
    uint32_t tp_basicsize, tp_flags, tp_dictoffset;
    uint32_t ht_cached_keys;     /* PyHeapTypeObject: shared instance keys   */
    uint32_t dict_keys, dict_values;   /* PyDictObject ma_keys, ma_values    */
    uint32_t values_header;      /* bytes before PyDictValues.values         */
    enum inst_kind inst;
    enum dict_kind dict;
};

struct py_layout {
    int minor;
    enum frame_kind frames;
    enum tstate_frame_kind ts_frame_kind;
    enum gil_kind gil;
    enum line_kind lines;

    /* _PyRuntimeState */
    uint32_t rt_finalizing;      /* PyThreadState* (nonzero while finalizing) */
    uint32_t rt_interp_head;
    uint32_t rt_gil_tstate;      /* GIL_RUNTIME_TSTATE only                  */
    uint32_t rt_gil;             /* GIL_RUNTIME_TSTATE: the _gil_runtime_state
                                  * (ceval.gil), for its switch count        */

    /* PyInterpreterState */
    uint32_t is_next;
    uint32_t is_threads_head;
    uint32_t is_id;              /* int64 id: 0 = the main interpreter        */
    uint32_t is_gc_collecting;   /* int, nonzero while the cyclic GC runs   */
    uint32_t is_modules;         /* sys.modules (a dict); 0 = not known     */
    uint32_t is_gil_ptr;         /* GIL_STRUCT_PTR: pointer to the gil state */
    uint32_t gil_holder;         /* inside _gil_runtime_state                */
    uint32_t gil_locked;
    uint32_t gil_switches;       /* switch_number: 0 = not known             */

    /* PyThreadState */
    uint32_t ts_read;            /* bytes to read from a tstate              */
    uint32_t ts_next;
    uint32_t ts_interp;
    uint32_t ts_frame;           /* frame pointer, or the cframe pointer     */
    uint32_t cframe_current;     /* TS_FRAME_CFRAME: offset in _PyCFrame     */
    uint32_t ts_native_tid;      /* 0 = none (3.10)                          */
    uint32_t ts_thread_id;       /* pthread_t                                */
    uint32_t ts_last_profiled;   /* 3.15+: last_profiled_frame; 0 = none     */
    uint32_t ts_last_profiled_seq; /* 3.15+: its pop counter                 */

    /* frame (PyFrameObject or _PyInterpreterFrame) */
    uint32_t fr_read;            /* bytes to read from a frame               */
    uint32_t fr_code;
    uint32_t fr_previous;
    uint32_t fr_instr;           /* 3.10: int f_lasti; else instruction ptr  */
    uint32_t fr_owner;           /* FRAMES_INTERP only                       */
    uint32_t fr_refcnt;          /* FRAMES_OBJECTS: ob_refcnt, 0 once freed  */
    uint32_t fr_gen;             /* FRAMES_OBJECTS: f_gen, set in generators */
    /* The lasti of a frame that has not started: -1 (before the first
     * instruction) up to 3.12, 0 (on it) from 3.13, where the interpreter's
     * own shim that runs a class's __init__ (init_shim_symbol, a static
     * code object) also stands there while __init__ runs. */
    int32_t lasti_unstarted;
    const char *init_shim_symbol;
    uintptr_t code_tag_mask;     /* bits to clear from fr_code (3.14+ stackref)*/
    /* Frames with owner_skip_min <= owner <= owner_skip_max are
     * interpreter-internal shims, not Python frames (-1: none). */
    int owner_skip_min;          /* 3.12/3.13: 3 (CSTACK) == only skipped     */
    int owner_skip_max;          /* 3.12/3.13: 3; 3.14+: 255; 3.11: none (-1) */

    /* PyCodeObject */
    uint32_t co_read;            /* bytes to read from a code object         */
    uint32_t co_filename;
    uint32_t co_name;
    uint32_t co_qualname;        /* 0 = none (3.10: use co_name)              */
    uint32_t co_firstlineno;
    uint32_t co_linetable;
    uint32_t co_firsttraceable;  /* FRAMES_INTERP only                       */
    uint32_t co_code_adaptive;   /* FRAMES_INTERP only                       */
    uint32_t co_units;           /* ob_size: code units in co_code_adaptive  */
    uint32_t co_code;            /* 3.10: co_code, a bytes object (else 0)    */
    /* Per opcode (opcodes.c): the instruction's size in code units (1 +
     * its inline cache entries) | OP_INLINE when its family can push a
     * Python callee inline (| OP_INLINE_SUBSCR: when its oparg is
     * nb_subscr) | OP_RESUMES when its family can resume a generator
     * through C code (a call, for, yield from or await, unpacking, in);
     * 0 for an opcode the table does not know.  NULL where
     * not known (free-threaded builds): python/callsite.c. */
    const uint8_t *opcodes;
    uint8_t nb_subscr;
    /* 3.10: EXTENDED_ARG, whose run belongs to the instruction after it:
     * f_lasti stands on the run's first unit (else 0). */
    uint8_t op_prefix;
    /* 3.14+: what finds the C function a frame stands calling
     * (python/ccall.c): the opcodes' stack effects (NULL: not read), the
     * frame's spilled stack pointer and first local, and the code
     * object's stack size, fast-local count and exception table. */
    const struct stack_table *stack;
    uint32_t fr_stackpointer, fr_localsplus;
    uint32_t co_stacksize, co_nlocalsplus, co_exceptiontable;

    /* 3.11: _PyInterpreterFrame.is_entry, set on a frame entered from C
     * (no shim frames mark that); 0 = none. */
    uint32_t fr_is_entry;

    struct resumer_layout resumer;
    struct exc_layout exc;
    struct attr_layout attr;
    struct task_layout task;

    /* objects */
    uint32_t ob_type;
    uint32_t bytes_size;         /* PyVarObject.ob_size of a bytes object    */
    uint32_t bytes_data;         /* ob_sval                                  */
    struct pystr_layout str;
};

#define OP_SIZE          0x1f
#define OP_RESUMES       0x20
#define OP_INLINE_SUBSCR 0x40
#define OP_INLINE        0x80

extern const uint8_t opcodes_310[256], opcodes_311[256], opcodes_312[256],
                     opcodes_313[256], opcodes_314[256], opcodes_315[256];

extern const struct py_layout py310_layout, py311_layout, py312_layout;

/* Fills *l from the _Py_DebugOffsets at the start of _PyRuntime for minor
 * 13, 14 or 15.  Returns 0, or -1 (unknown minor, bad cookie, implausible
 * values) with a reason in *why. */
int debug_offsets_layout(uintptr_t runtime, int minor, struct py_layout *l,
                         const char **why);

#endif
