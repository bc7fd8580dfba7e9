/* CPython 3.12: offsets from the 3.12.1 headers (pyprof(7),
 * SUPPORTED INTERPRETERS). */
#include "python/layout/layout.h"

const struct py_layout py312_layout = {
    .minor = 12,
    .frames = FRAMES_INTERP,
    .ts_frame_kind = TS_FRAME_CFRAME,
    .gil = GIL_STRUCT_PTR,
    .lines = LINES_311,

    .rt_finalizing = 24, .rt_interp_head = 40,
    .is_next = 0, .is_threads_head = 72, .is_id = 8,
    .is_gc_collecting = 312,
    .is_modules = 944,            /* sys.modules; also read with ctypes */
    .is_gil_ptr = 384, .gil_holder = 8, .gil_locked = 16,
    .gil_switches = 24,

    .ts_read = 152, .ts_next = 8, .ts_interp = 16, .ts_frame = 56,
    .cframe_current = 0, .ts_native_tid = 144, .ts_thread_id = 136,

    /* f_code, previous, prev_instr, owner; owner 3 = C-stack shim */
    .fr_read = 72, .fr_code = 0, .fr_previous = 8, .fr_instr = 56,
    .fr_owner = 70, .owner_skip_min = 3, .owner_skip_max = 3,

    .lasti_unstarted = -1,
    .co_read = 184, .co_filename = 112, .co_name = 120, .co_qualname = 128,
    .co_firstlineno = 68, .co_linetable = 136, .co_firsttraceable = 176,
    .co_code_adaptive = 192,
    .co_units = 16, .opcodes = opcodes_312,

    /* exc_info, exc_state, datastack_chunk, datastack_top; _PyStackChunk;
     * PyGenObject's gi_exc_state, gi_frame_state, gi_iframe (the same in
     * coroutines and async generators); FRAME_EXECUTING 0, owners
     * FRAME_OWNED_BY_THREAD 0 and FRAME_OWNED_BY_GENERATOR 1 */
    .resumer = { .ts_exc_info = 104, .ts_exc_state = 256,
                 .ts_datastack_chunk = 232, .ts_datastack_top = 240,
                 .chunk_previous = 0, .chunk_size = 8, .chunk_data = 24,
                 .gen_exc_state = 40, .gen_frame_state = 67, .gen_iframe = 72,
                 .exc_previous = 8, .co_framesize = 76, .executing = 0,
                 .owned_by_thread = 0, .owned_by_generator = 1 },

    .ob_type = 8, .bytes_size = 16, .bytes_data = 32,
    .str = { .length = 16, .state = 32, .ascii_data = 40, .compact_data = 56,
             .legacy_data = 56, .kind_shift = 2, .compact_bit = 5,
             .ascii_bit = 6 },
    /* PyThreadState current_exception, exc_info; _PyErr_StackItem exc_value, previous_item */
    .exc = { .ts_current = 96, .ts_exc_info = 104, .item_value = 0,
             .item_previous = 8 },
    /* _PyInterpreterFrame localsplus; PyTypeObject; PyHeapTypeObject
     * ht_cached_keys; PyDictObject ma_keys, ma_values */
    .attr = { .fr_localsplus = 72, .tp_basicsize = 32, .tp_flags = 168,
              .tp_dictoffset = 288, .ht_cached_keys = 880, .dict_keys = 32,
              .dict_values = 40, .values_header = 0, .inst = INST_MANAGED_312,
              .dict = DICT_311 },
};
