/* CPython 3.10: offsets from the 3.10.13 headers (pyprof(7),
 * SUPPORTED INTERPRETERS). */
#include "python/layout/layout.h"

const struct py_layout py310_layout = {
    .minor = 10,
    .frames = FRAMES_OBJECTS,
    .ts_frame_kind = TS_FRAME_DIRECT,
    .gil = GIL_RUNTIME_TSTATE,
    .lines = LINES_310,

    .rt_finalizing = 16, .rt_interp_head = 32, .rt_gil_tstate = 568,
    .rt_gil = 352, .gil_holder = 8, .gil_locked = 16, .gil_switches = 24,
    .is_next = 0, .is_threads_head = 8, .is_id = 24,
    .is_gc_collecting = 816,
    .is_modules = 856,            /* sys.modules; also read with ctypes */

    .ts_read = 184, .ts_next = 8, .ts_interp = 16, .ts_frame = 24,
    .ts_native_tid = 0, .ts_thread_id = 176,

    /* PyFrameObject: f_back, f_code, int f_lasti (code units); a frame
     * on the free list or kept as its code's zombie has ob_refcnt 0;
     * f_gen is the generator of a generator's or coroutine's frame */
    .fr_read = 100, .fr_code = 32, .fr_previous = 24, .fr_instr = 96,
    .fr_refcnt = 0, .fr_gen = 88,
    .lasti_unstarted = -1,
    .owner_skip_min = -1, .owner_skip_max = -1,

    .co_read = 128, .co_filename = 104, .co_name = 112, .co_qualname = 0,
    .co_firstlineno = 40, .co_linetable = 120,
    .co_code = 48, .opcodes = opcodes_310, .op_prefix = 144,

    .ob_type = 8, .bytes_size = 16, .bytes_data = 32,
    .str = { .length = 16, .state = 32, .ascii_data = 48, .compact_data = 72,
             .legacy_data = 72, .kind_shift = 2, .compact_bit = 5,
             .ascii_bit = 6 },
    /* PyThreadState curexc_type, exc_info; _PyErr_StackItem exc_type (what
     * 3.10's sys.exc_info() tests), previous_item */
    .exc = { .ts_current = 88, .ts_exc_info = 144, .item_value = 0,
             .item_previous = 24 },
    /* PyFrameObject f_localsplus; PyTypeObject; PyHeapTypeObject
     * ht_cached_keys; PyDictObject (the keys are Objects/dict-common.h's,
     * not installed: dk_size 8, dk_nentries 32, dk_indices 40) */
    .attr = { .fr_localsplus = 352, .tp_basicsize = 32, .tp_flags = 168,
              .tp_dictoffset = 288, .ht_cached_keys = 872, .dict_keys = 32,
              .dict_values = 40, .values_header = 0, .inst = INST_DICTOFFSET,
              .dict = DICT_310 },
};
