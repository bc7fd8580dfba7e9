/*
 * debug_offsets.c — 3.13 and later describe themselves: _PyRuntime starts
 * with _Py_DebugOffsets ("xdebugpy", version, free_threaded, then groups of
 * uint64 offsets).  That struct is itself re-laid-out in every minor
 * version, so this file keeps one mirror per minor: the byte position of
 * each field we use inside _Py_DebugOffsets, checked field by field against
 * the headers of 3.13.0, 3.14.10 and 3.15.2 (tests/unit/test_debug_offsets.c
 * holds the same positions and the values those headers give).  What the
 * debug offsets do not carry (first traceable instruction, str state bits,
 * frame owner values, the stackref tag) is per-minor knowledge kept here too.
 */
#include <string.h>

#include "python/layout/layout.h"
#include "guard/safe_read.h"

/* Position of each field inside _Py_DebugOffsets (is_modules: its
 * interpreter_state.imports_modules, which 3.13.0, 3.14.10 and 3.15.2
 * give as where sys.modules is, read with ctypes). */
struct dbg_positions {
    int minor;
    uint32_t struct_size;
    uint32_t rt_finalizing, rt_interp_head;
    uint32_t is_id, is_next, is_threads_head, is_gil_ptr, is_gc, is_modules;
    uint32_t gc_collecting;
    uint32_t ts_size, ts_next, ts_interp, ts_current_frame, ts_thread_id,
             ts_native_tid;
    uint32_t ts_last_profiled, ts_last_profiled_seq;   /* 0 = none (< 3.15) */
    uint32_t fr_size, fr_previous, fr_executable, fr_instr, fr_localsplus,
             fr_owner;
    uint32_t co_size, co_filename, co_name, co_qualname, co_linetable,
             co_firstlineno, co_code_adaptive;
    uint32_t ob_type;
    uint32_t bytes_size, bytes_data;
    uint32_t str_state, str_length, str_ascii_size;
    uint32_t str_compact_size;                          /* 0 = none (< 3.15) */
    /* 3.15+: thread_state.current_exception; 0 = none */
    uint32_t ts_current_exception;
    /* not in the debug offsets; exc: PyThreadState current_exception and
     * exc_info, _PyErr_StackItem exc_value and previous_item from the
     * 3.13.0, 3.14.10 and 3.15.2 headers (checked against
     * ts_current_exception where that is there) */
    uint32_t co_firsttraceable;
    struct exc_layout exc;
    uint32_t ht_cached_keys;     /* the rest of attr is the same in all */
    /* gen_object.gi_iframe, gi_frame_state, interpreter_frame.stackpointer
     * (0: none, 3.13); the frame states are pycore_frame.h's */
    uint32_t gen_iframe, gen_frame_state, fr_stackpointer;
    int8_t st_awaiting, st_awaiting_locked, st_executing;
    uintptr_t code_tag_mask;
    int owner_skip_min, owner_skip_max;
};

static const struct dbg_positions positions[] = {
    { .minor = 13, .struct_size = 584,
      .rt_finalizing = 32, .rt_interp_head = 40,
      .is_id = 56, .is_next = 64, .is_threads_head = 72, .is_gil_ptr = 112,
      .is_gc = 80, .is_modules = 88, .gc_collecting = 576,
      .ts_size = 152, .ts_next = 168, .ts_interp = 176,
      .ts_current_frame = 184, .ts_thread_id = 192, .ts_native_tid = 200,
      .fr_size = 224, .fr_previous = 232, .fr_executable = 240,
      .fr_instr = 248, .fr_localsplus = 256, .fr_owner = 264,
      .co_size = 272, .co_filename = 280, .co_name = 288, .co_qualname = 296,
      .co_linetable = 304, .co_firstlineno = 312, .co_code_adaptive = 344,
      .ob_type = 360, .bytes_size = 520, .bytes_data = 528,
      .str_state = 544, .str_length = 552, .str_ascii_size = 560,
      .co_firsttraceable = 184, .code_tag_mask = 0,
      .exc = { .ts_current = 112, .ts_exc_info = 120, .item_previous = 8 },
      .ht_cached_keys = 880,
      .owner_skip_min = 3, .owner_skip_max = 3 },
    { .minor = 14, .struct_size = 760,
      .rt_finalizing = 32, .rt_interp_head = 40,
      .is_id = 56, .is_next = 64, .is_threads_head = 72, .is_gil_ptr = 120,
      .is_gc = 88, .is_modules = 96, .gc_collecting = 656,
      .ts_size = 176, .ts_next = 192, .ts_interp = 200,
      .ts_current_frame = 208, .ts_thread_id = 216, .ts_native_tid = 224,
      .fr_size = 248, .fr_previous = 256, .fr_executable = 264,
      .fr_instr = 272, .fr_localsplus = 280, .fr_owner = 288,
      .co_size = 312, .co_filename = 320, .co_name = 328, .co_qualname = 336,
      .co_linetable = 344, .co_firstlineno = 352, .co_code_adaptive = 384,
      .ob_type = 408, .bytes_size = 600, .bytes_data = 608,
      .str_state = 624, .str_length = 632, .str_ascii_size = 640,
      .co_firsttraceable = 192, .code_tag_mask = 3,     /* Py_TAG_BITS */
      .exc = { .ts_current = 112, .ts_exc_info = 120, .item_previous = 8 },
      .ht_cached_keys = 880,
      .gen_iframe = 680, .gen_frame_state = 688, .fr_stackpointer = 296,
      .st_awaiting = -1, .st_awaiting_locked = -1, .st_executing = 0,
      /* 3 = owned by the interpreter, 4 = C stack: both are shims */
      .owner_skip_min = 3, .owner_skip_max = 255 },
    /* 3.15 adds base_frame and the profilers' last_profiled_frame (+ seq)
     * to the thread state, exception fields after it, an err_stackitem
     * group, two type fields, a heap-type group and the compact str size:
     * every later group moves. */
    { .minor = 15, .struct_size = 888,
      .rt_finalizing = 32, .rt_interp_head = 40,
      .is_id = 56, .is_next = 64, .is_threads_head = 72, .is_gil_ptr = 120,
      .is_gc = 88, .is_modules = 96, .gc_collecting = 760,
      .ts_size = 176, .ts_next = 192, .ts_interp = 200,
      .ts_current_frame = 208, .ts_last_profiled = 224,
      .ts_last_profiled_seq = 232, .ts_thread_id = 240, .ts_native_tid = 248,
      .fr_size = 312, .fr_previous = 320, .fr_executable = 328,
      .fr_instr = 336, .fr_localsplus = 344, .fr_owner = 352,
      .co_size = 376, .co_filename = 384, .co_name = 392, .co_qualname = 400,
      .co_linetable = 408, .co_firstlineno = 416, .co_code_adaptive = 448,
      .ob_type = 472, .bytes_size = 696, .bytes_data = 704,
      .str_state = 720, .str_length = 728, .str_ascii_size = 736,
      .str_compact_size = 744, .ts_current_exception = 288,
      .co_firsttraceable = 192, .code_tag_mask = 3,     /* Py_TAG_BITS */
      .exc = { .ts_current = 136, .ts_exc_info = 144, .item_previous = 8 },
      .ht_cached_keys = 888,
      .gen_iframe = 808, .gen_frame_state = 816, .fr_stackpointer = 360,
      .st_awaiting = 2, .st_awaiting_locked = 3, .st_executing = 4,
      /* the C-stack owner is gone; 3 = owned by the interpreter (entry
       * frames and the thread state's base frame) is the only shim */
      .owner_skip_min = 3, .owner_skip_max = 255 },
};

static uint64_t field(const uint8_t *raw, uint32_t pos)
{
    uint64_t v;
    memcpy(&v, raw + pos, sizeof v);
    return v;
}

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

int debug_offsets_layout(uintptr_t runtime, int minor, struct py_layout *l,
                         const char **why)
{
    const struct dbg_positions *p = NULL;
    for (size_t i = 0; i < sizeof positions / sizeof *positions; i++)
        if (positions[i].minor == minor)
            p = &positions[i];
    if (!p) {
        *why = "no mirror of _Py_DebugOffsets for this minor version";
        return -1;
    }
    uint8_t raw[1024];
    if (safe_read(raw, runtime, p->struct_size) != 0 ||
        memcmp(raw, "xdebugpy", 8) != 0) {
        *why = "_PyRuntime does not start with the \"xdebugpy\" cookie";
        return -1;
    }
    if (((field(raw, 8) >> 16) & 0xff) != (uint64_t)minor) {
        *why = "_Py_DebugOffsets.version disagrees with Py_Version";
        return -1;
    }
    int free_threaded = field(raw, 16) != 0;

    memset(l, 0, sizeof *l);
    l->minor = minor;
    l->frames = FRAMES_INTERP;
    l->ts_frame_kind = TS_FRAME_DIRECT;
    l->gil = free_threaded ? GIL_NONE : GIL_STRUCT_PTR;
    l->lines = LINES_311;

    l->rt_finalizing = (uint32_t)field(raw, p->rt_finalizing);
    l->rt_interp_head = (uint32_t)field(raw, p->rt_interp_head);
    l->is_id = (uint32_t)field(raw, p->is_id);
    l->is_next = (uint32_t)field(raw, p->is_next);
    l->is_threads_head = (uint32_t)field(raw, p->is_threads_head);
    l->is_gil_ptr = (uint32_t)field(raw, p->is_gil_ptr);
    /* Only the <GC> pseudo-frame needs it: an implausible one turns that
     * off rather than refusing the interpreter. */
    uint64_t gc = field(raw, p->is_gc) + field(raw, p->gc_collecting);
    l->is_gc_collecting = gc < (1u << 20) ? (uint32_t)gc : 0;
    /* Only the main thread's name needs it: off rather than refused. */
    uint64_t modules = field(raw, p->is_modules);
    l->is_modules = modules < (1u << 20) ? (uint32_t)modules : 0;
    l->gil_holder = 8;       /* _gil_runtime_state: last_holder, locked */
    l->gil_locked = 16;
    l->gil_switches = 24;    /* switch_number (GIL builds)               */
    l->lasti_unstarted = 0;  /* a new frame's instr_ptr is its first one */
    l->init_shim_symbol = "_Py_InitCleanup";

    l->ts_next = (uint32_t)field(raw, p->ts_next);
    l->ts_interp = (uint32_t)field(raw, p->ts_interp);
    l->ts_frame = (uint32_t)field(raw, p->ts_current_frame);
    l->ts_thread_id = (uint32_t)field(raw, p->ts_thread_id);
    l->ts_native_tid = (uint32_t)field(raw, p->ts_native_tid);
    if (p->ts_last_profiled) {
        l->ts_last_profiled = (uint32_t)field(raw, p->ts_last_profiled);
        l->ts_last_profiled_seq = (uint32_t)field(raw, p->ts_last_profiled_seq);
    }
    /* Only PP_SAMPLE_EXCEPTION needs them: where the debug offsets say
     * otherwise, that flag is off rather than the interpreter refused. */
    l->exc = p->exc;
    if (p->ts_current_exception &&
        field(raw, p->ts_current_exception) != p->exc.ts_current)
        l->exc.ts_current = 0;
    l->ts_read = max_u32(max_u32(max_u32(l->ts_next, l->ts_interp),
                                 max_u32(l->ts_frame, l->ts_last_profiled_seq)),
                         max_u32(max_u32(l->ts_thread_id, l->ts_native_tid),
                                 l->exc.ts_current ? l->exc.ts_exc_info : 0)) + 8;

    l->fr_previous = (uint32_t)field(raw, p->fr_previous);
    l->fr_code = (uint32_t)field(raw, p->fr_executable);
    l->fr_instr = (uint32_t)field(raw, p->fr_instr);
    l->fr_owner = (uint32_t)field(raw, p->fr_owner);
    l->fr_read = max_u32(max_u32(l->fr_previous, l->fr_code),
                         max_u32(l->fr_instr, l->fr_owner)) + 8;
    l->code_tag_mask = p->code_tag_mask;
    /* PyTypeObject, PyDictObject and the inline values are the same in
     * 3.13-3.15 (their headers); only the heap type's keys move. */
    l->attr = (struct attr_layout){
        .fr_localsplus = (uint32_t)field(raw, p->fr_localsplus),
        .tp_basicsize = 32, .tp_flags = 168, .tp_dictoffset = 288,
        .ht_cached_keys = p->ht_cached_keys, .dict_keys = 32, .dict_values = 40,
        .values_header = 8, .inst = INST_INLINE_313, .dict = DICT_311 };
    l->owner_skip_min = p->owner_skip_min;
    l->owner_skip_max = p->owner_skip_max;

    l->co_filename = (uint32_t)field(raw, p->co_filename);
    l->co_name = (uint32_t)field(raw, p->co_name);
    l->co_qualname = (uint32_t)field(raw, p->co_qualname);
    l->co_linetable = (uint32_t)field(raw, p->co_linetable);
    l->co_firstlineno = (uint32_t)field(raw, p->co_firstlineno);
    l->co_code_adaptive = (uint32_t)field(raw, p->co_code_adaptive);
    l->co_firsttraceable = p->co_firsttraceable;
    l->co_read = l->co_code_adaptive;
    /* Free-threaded builds run per-thread copies of the bytecode: a
     * frame's instruction is not in co_code_adaptive. */
    if (!free_threaded) {
        l->opcodes = minor == 13 ? opcodes_313 :
                     minor == 14 ? opcodes_314 : opcodes_315;
        l->nb_subscr = 26;             /* dis._nb_ops: 3.14 and 3.15 */
    }

    l->ob_type = (uint32_t)field(raw, p->ob_type);
    l->co_units = l->ob_type + 8;      /* PyVarObject.ob_size */
    l->bytes_size = (uint32_t)field(raw, p->bytes_size);
    l->bytes_data = (uint32_t)field(raw, p->bytes_data);
    uint32_t ascii = (uint32_t)field(raw, p->str_ascii_size);
    l->str.length = (uint32_t)field(raw, p->str_length);
    l->str.state = (uint32_t)field(raw, p->str_state);
    l->str.ascii_data = ascii;
    /* + utf8_length, utf8 (3.15 says so itself) */
    uint32_t compact = p->str_compact_size ?
        (uint32_t)field(raw, p->str_compact_size) : ascii + 16;
    l->str.compact_data = compact;
    l->str.legacy_data = compact;
    /* Free-threaded 3.14 made `interned` a whole byte (pyprof(7),
     * SUPPORTED INTERPRETERS). */
    int ft_bits = free_threaded && minor >= 14;
    l->str.kind_shift = ft_bits ? 8 : 2;
    l->str.compact_bit = ft_bits ? 11 : 5;
    l->str.ascii_bit = ft_bits ? 12 : 6;

    /* Every offset must land inside the object it belongs to. */
    uint64_t ts_size = field(raw, p->ts_size), fr_size = field(raw, p->fr_size),
             co_size = field(raw, p->co_size);
    /* Only asyncio's tasks need them (not on free-threaded builds, whose
     * task lists are per thread and locked): off rather than refused. */
    if (p->gen_iframe && !free_threaded) {
        uint64_t gen_size = field(raw, p->gen_iframe - 16);  /* gen_object.size */
        l->task = (struct task_layout){
            .gen_iframe = (uint32_t)field(raw, p->gen_iframe),
            .gen_frame_state = (uint32_t)field(raw, p->gen_frame_state),
            .fr_stackpointer = (uint32_t)field(raw, p->fr_stackpointer),
            .awaiting = p->st_awaiting, .awaiting_locked = p->st_awaiting_locked,
            .executing = p->st_executing };
        if (l->task.gen_iframe >= gen_size ||
            l->task.gen_frame_state >= gen_size || gen_size > 4096 ||
            l->task.fr_stackpointer + 8 > fr_size)
            l->task.gen_iframe = 0;
    }
    /* Only thread names need it: off rather than refused. */
    if (l->attr.fr_localsplus >= fr_size + 8 || l->attr.fr_localsplus < 8)
        l->attr.fr_localsplus = 0;
    /* Only C calls need these (python/ccall.c): off rather than refused.
     * The code object's co_exceptiontable, co_stacksize and co_nlocalsplus
     * are not in the debug offsets: 3.14.10's and 3.15.2's headers, and
     * their code objects read with ctypes, agree on 40, 64 and 72. */
    if (p->fr_stackpointer && !free_threaded && l->attr.fr_localsplus) {
        l->stack = minor == 14 ? &stack_314 : &stack_315;
        l->fr_stackpointer = (uint32_t)field(raw, p->fr_stackpointer);
        l->fr_localsplus = l->attr.fr_localsplus;
        l->co_exceptiontable = 40;
        l->co_stacksize = 64;
        l->co_nlocalsplus = 72;
        if (l->fr_stackpointer + 8 > fr_size || l->co_nlocalsplus + 4 > co_size)
            l->stack = NULL;
    }
    if (l->ts_read > ts_size || l->fr_read > fr_size + 8 ||
        l->co_code_adaptive > co_size || ts_size > 65536 || co_size > 4096 ||
        l->ts_read > 4096 || l->fr_read > 512 || compact < ascii ||
        compact > ascii + 64) {
        *why = "_Py_DebugOffsets holds implausible offsets";
        return -1;
    }
    return 0;
}
