/* CPython 3.11: offsets from the 3.11.7 headers; also right for Debian's
 * static 3.11.2 (pyprof(7), SUPPORTED INTERPRETERS). */
#include "python/layout/layout.h"

const struct py_layout py311_layout = {
    .minor = 11,
    .frames = FRAMES_INTERP,
    .ts_frame_kind = TS_FRAME_CFRAME,
    .gil = GIL_RUNTIME_TSTATE,
    .lines = LINES_311,

    .rt_finalizing = 24, .rt_interp_head = 40, .rt_gil_tstate = 576,
    .rt_gil = 360, .gil_holder = 8, .gil_locked = 16, .gil_switches = 24,
    .is_next = 0, .is_threads_head = 16, .is_id = 48,
    .is_gc_collecting = 848,
    .is_modules = 888,            /* sys.modules; also read with ctypes */

    .ts_read = 168, .ts_next = 8, .ts_interp = 16, .ts_frame = 56,
    .cframe_current = 8, .ts_native_tid = 160, .ts_thread_id = 152,

    /* _PyInterpreterFrame: f_code, previous, prev_instr, owner.  3.11 has
     * no shim frames: is_entry only marks a C-stack boundary. */
    .fr_read = 72, .fr_code = 32, .fr_previous = 48, .fr_instr = 56,
    .fr_owner = 69, .owner_skip_min = -1, .owner_skip_max = -1,

    .lasti_unstarted = -1,
    .co_read = 176, .co_filename = 112, .co_name = 120, .co_qualname = 128,
    .co_firstlineno = 72, .co_linetable = 136, .co_firsttraceable = 168,
    .co_code_adaptive = 184,
    .co_units = 16, .opcodes = opcodes_311, .fr_is_entry = 68,

    .ob_type = 8, .bytes_size = 16, .bytes_data = 32,
    .str = { .length = 16, .state = 32, .ascii_data = 48, .compact_data = 72,
             .legacy_data = 72, .kind_shift = 2, .compact_bit = 5,
             .ascii_bit = 6 },
    /* PyThreadState curexc_type, exc_info; _PyErr_StackItem exc_value, previous_item */
    .exc = { .ts_current = 96, .ts_exc_info = 120, .item_value = 0,
             .item_previous = 8 },
    /* _PyInterpreterFrame localsplus; PyTypeObject; PyHeapTypeObject
     * ht_cached_keys; PyDictObject ma_keys, ma_values */
    .attr = { .fr_localsplus = 72, .tp_basicsize = 32, .tp_flags = 168,
              .tp_dictoffset = 288, .ht_cached_keys = 872, .dict_keys = 32,
              .dict_values = 40, .values_header = 0, .inst = INST_MANAGED_311,
              .dict = DICT_311 },
};
