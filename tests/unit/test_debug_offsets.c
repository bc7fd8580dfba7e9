/*
 * test_debug_offsets.c — the _Py_DebugOffsets parser, one test per minor
 * version it knows.  Each test builds a byte image of that version's
 * struct: every field at its position in the struct and with its value,
 * both as the headers of that release give them (3.13.0, Debian's
 * libpython3.14-dev 3.14.10 and libpython3.15-dev 3.15.2, compiled with
 * offsetof; the interpreters' own _PyRuntime holds the same bytes), and
 * parses it with the real parser.  The positions here are written out
 * again on purpose: a slip in the parser's mirror shows up as a wrong field.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "python/layout/layout.h"
#include "guard/safe_read.h"

struct at { uint32_t pos; uint64_t value; };

static uint8_t image[1024] __attribute__((aligned(8)));

static void build(int minor, const struct at *fields, size_t n)
{
    cr_assert(safe_read_init() == 0, "the read guard could not be installed");
    memset(image, 0, sizeof image);
    memcpy(image, "xdebugpy", 8);
    uint64_t version = (3u << 24) | ((uint64_t)minor << 16) | 0xf0;
    memcpy(image + 8, &version, 8);
    for (size_t i = 0; i < n; i++)
        memcpy(image + fields[i].pos, &fields[i].value, 8);
}

static struct py_layout parse(int minor)
{
    struct py_layout l;
    const char *why = NULL;
    int r = debug_offsets_layout((uintptr_t)image, minor, &l, &why);
    cr_assert(r == 0, "3.%d refused: %s", minor, why ? why : "?");
    return l;
}

/* What differs between versions. */
struct expect {
    uint32_t rt_finalizing, rt_interp_head, is_id, is_next, is_threads_head;
    uint32_t is_gc_collecting;
    uint32_t ts_thread_id, ts_native_tid, ts_last_profiled, ts_last_profiled_seq;
    uint32_t fr_owner, co_code_adaptive, co_firsttraceable;
    uintptr_t code_tag_mask;
    int owner_skip_max;
    uint32_t exc_current, exc_info;   /* PyThreadState, from the headers */
    uint32_t localsplus, ht_cached_keys;
    /* asyncio tasks: a coroutine's frame and state, a frame's stack
     * pointer (0 before 3.14), the state of an awaiting coroutine */
    uint32_t gen_iframe, gen_frame_state, fr_stackpointer;
    int8_t awaiting, awaiting_locked, executing;
};

/* Parses the image as 3.minor and checks every field. */
static void check(int minor, const struct expect *e)
{
    struct py_layout layout = parse(minor), *l = &layout;
    cr_expect_eq(l->rt_finalizing, e->rt_finalizing);
    cr_expect_eq(l->rt_interp_head, e->rt_interp_head);
    cr_expect_eq(l->is_id, e->is_id);
    cr_expect_eq(l->is_gc_collecting, e->is_gc_collecting);
    cr_expect_eq(l->is_next, e->is_next);
    cr_expect_eq(l->is_threads_head, e->is_threads_head);
    cr_expect_eq(l->ts_thread_id, e->ts_thread_id);
    cr_expect_eq(l->ts_native_tid, e->ts_native_tid);
    cr_expect_eq(l->ts_last_profiled, e->ts_last_profiled);
    cr_expect_eq(l->ts_last_profiled_seq, e->ts_last_profiled_seq);
    cr_expect_eq(l->fr_owner, e->fr_owner);
    cr_expect_eq(l->co_code_adaptive, e->co_code_adaptive);
    cr_expect_eq(l->co_firsttraceable, e->co_firsttraceable);
    cr_expect_eq(l->code_tag_mask, e->code_tag_mask);
    cr_expect_eq(l->owner_skip_min, 3);
    cr_expect_eq(l->owner_skip_max, e->owner_skip_max);
    cr_expect_eq(l->exc.ts_current, e->exc_current);
    cr_expect_eq(l->exc.ts_exc_info, e->exc_info);
    cr_expect_eq(l->exc.item_value, 0);
    cr_expect_eq(l->exc.item_previous, 8);
    cr_expect_geq(l->ts_read, e->exc_info + 8);
    cr_expect_eq(l->attr.fr_localsplus, e->localsplus);
    cr_expect_eq(l->attr.ht_cached_keys, e->ht_cached_keys);
    cr_expect_eq(l->task.gen_iframe, e->gen_iframe);
    cr_expect_eq(l->task.gen_frame_state, e->gen_frame_state);
    cr_expect_eq(l->task.fr_stackpointer, e->fr_stackpointer);
    if (e->gen_iframe) {
        cr_expect_eq(l->task.awaiting, e->awaiting);
        cr_expect_eq(l->task.awaiting_locked, e->awaiting_locked);
        cr_expect_eq(l->task.executing, e->executing);
    }
    cr_expect_eq(l->attr.inst, INST_INLINE_313);
    cr_expect_eq(l->attr.values_header, 8);
    cr_expect_eq(l->attr.tp_flags, 168);
    cr_expect_eq(l->attr.tp_dictoffset, 288);
    /* the same in every version */
    cr_expect_eq(l->frames, FRAMES_INTERP);
    cr_expect_eq(l->gil, GIL_STRUCT_PTR);
    cr_expect_eq(l->is_gil_ptr, 16);            /* ceval.gil */
    cr_expect_eq(l->gil_holder, 8);             /* _gil_runtime_state */
    cr_expect_eq(l->gil_locked, 16);
    cr_expect_eq(l->ts_next, 8);
    cr_expect_eq(l->ts_interp, 16);
    cr_expect_eq(l->ts_frame, 72);
    cr_expect_eq(l->fr_code, 0);                /* f_executable */
    cr_expect_eq(l->fr_previous, 8);
    cr_expect_eq(l->fr_instr, 56);
    cr_expect_eq(l->co_filename, 112);
    cr_expect_eq(l->co_name, 120);
    cr_expect_eq(l->co_qualname, 128);
    cr_expect_eq(l->co_linetable, 136);
    cr_expect_eq(l->co_firstlineno, 68);
    cr_expect_eq(l->ob_type, 8);
    cr_expect_eq(l->bytes_size, 16);
    cr_expect_eq(l->bytes_data, 32);
    cr_expect_eq(l->str.state, 32);
    cr_expect_eq(l->str.length, 16);
    cr_expect_eq(l->str.ascii_data, 40);
    cr_expect_eq(l->str.compact_data, 56);
    cr_expect_eq(l->str.kind_shift, 2);
    cr_expect_eq(l->str.compact_bit, 5);
    cr_expect_eq(l->str.ascii_bit, 6);
}

Test(debug_offsets, python_3_13_0)
{
    static const struct at f[] = {
        { 32, 608 }, { 40, 632 },                           /* runtime */
        { 56, 7272 }, { 64, 7264 }, { 72, 7344 }, { 80, 7400 }, /* interpreter */
        { 112, 16 }, { 576, 200 },                          /* gc.collecting */
        { 152, 304 }, { 168, 8 }, { 176, 16 }, { 184, 72 },  /* thread */
        { 192, 152 }, { 200, 160 },
        { 224, 80 }, { 232, 8 }, { 240, 0 }, { 248, 56 }, { 256, 72 },
        { 264, 70 },                                               /* frame */
        { 272, 208 }, { 280, 112 }, { 288, 120 }, { 296, 128 }, /* code */
        { 304, 136 }, { 312, 68 }, { 344, 200 },
        { 360, 8 },                                         /* object */
        { 520, 16 }, { 528, 32 },                           /* bytes */
        { 544, 32 }, { 552, 16 }, { 560, 40 },              /* str */
    };
    static const struct expect e = {
        .rt_finalizing = 608, .rt_interp_head = 632, .is_id = 7272, .is_next = 7264,
        .is_threads_head = 7344, .is_gc_collecting = 7600,
        .ts_thread_id = 152, .ts_native_tid = 160,
        .fr_owner = 70, .co_code_adaptive = 200, .co_firsttraceable = 184,
        .code_tag_mask = 0, .owner_skip_max = 3,
        .exc_current = 112, .exc_info = 120, .localsplus = 72,
        .ht_cached_keys = 880 };
    build(13, f, sizeof f / sizeof *f);
    check(13, &e);
}

Test(debug_offsets, python_3_14_10)
{
    static const struct at f[] = {
        { 32, 784 }, { 40, 808 },
        { 56, 7280 }, { 64, 7272 }, { 72, 7344 }, { 88, 7408 }, { 120, 16 },
        { 656, 192 },
        { 176, 832 }, { 192, 8 }, { 200, 16 }, { 208, 72 },
        { 216, 152 }, { 224, 160 },
        { 248, 88 }, { 256, 8 }, { 264, 0 }, { 272, 56 }, { 280, 80 }, { 288, 74 },
        { 312, 216 }, { 320, 112 }, { 328, 120 }, { 336, 128 },
        { 344, 136 }, { 352, 68 }, { 384, 208 },
        { 408, 8 },
        { 600, 16 }, { 608, 32 },
        { 624, 32 }, { 632, 16 }, { 640, 40 },
        { 664, 160 }, { 680, 72 }, { 688, 67 }, { 296, 64 },  /* gen, stackpointer */
    };
    static const struct expect e = {
        .rt_finalizing = 784, .rt_interp_head = 808, .is_id = 7280, .is_next = 7272,
        .is_threads_head = 7344, .is_gc_collecting = 7600,
        .ts_thread_id = 152, .ts_native_tid = 160,
        .fr_owner = 74, .co_code_adaptive = 208, .co_firsttraceable = 192,
        .code_tag_mask = 3, .owner_skip_max = 255,
        .exc_current = 112, .exc_info = 120, .localsplus = 80,
        .ht_cached_keys = 880,
        .gen_iframe = 72, .gen_frame_state = 67, .fr_stackpointer = 64,
        .awaiting = -1, .awaiting_locked = -1, .executing = 0 };
    build(14, f, sizeof f / sizeof *f);
    check(14, &e);
}

Test(debug_offsets, python_3_15_2)
{
    static const struct at f[] = {
        { 32, 912 }, { 40, 936 },
        { 56, 7272 }, { 64, 7264 }, { 72, 7336 }, { 88, 7400 }, { 120, 16 },
        { 760, 112 },
        { 176, 888 }, { 192, 8 }, { 200, 16 }, { 208, 72 },
        { 216, 80 }, { 224, 88 }, { 232, 96 },   /* base, last profiled, seq */
        { 240, 176 }, { 248, 184 },
        { 312, 88 }, { 320, 8 }, { 328, 0 }, { 336, 56 }, { 344, 80 }, { 352, 74 },
        { 376, 216 }, { 384, 112 }, { 392, 120 }, { 400, 128 },
        { 408, 136 }, { 416, 68 }, { 448, 208 },
        { 472, 8 },
        { 696, 16 }, { 704, 32 },
        { 720, 32 }, { 728, 16 }, { 736, 40 }, { 744, 56 },
        { 288, 136 }, { 296, 288 }, { 304, 0 },  /* exception, exc_state, value */
        { 792, 160 }, { 808, 72 }, { 816, 67 }, { 360, 64 },  /* gen, stackpointer */
    };
    static const struct expect e = {
        .rt_finalizing = 912, .rt_interp_head = 936, .is_id = 7272, .is_next = 7264,
        .is_threads_head = 7336, .is_gc_collecting = 7512,
        .ts_thread_id = 176, .ts_native_tid = 184,
        .ts_last_profiled = 88, .ts_last_profiled_seq = 96,
        .fr_owner = 74, .co_code_adaptive = 208, .co_firsttraceable = 192,
        .code_tag_mask = 3, .owner_skip_max = 255,
        .exc_current = 136, .exc_info = 144, .localsplus = 80,
        .ht_cached_keys = 888,
        .gen_iframe = 72, .gen_frame_state = 67, .fr_stackpointer = 64,
        .awaiting = 2, .awaiting_locked = 3, .executing = 4 };
    build(15, f, sizeof f / sizeof *f);
    check(15, &e);
    /* Debug offsets that put the current exception elsewhere than the
     * table turn the exception flag off, and nothing else. */
    uint64_t elsewhere = 152;
    memcpy(image + 288, &elsewhere, 8);
    struct py_layout l = parse(15);
    cr_expect_eq(l.exc.ts_current, 0);
}

Test(debug_offsets, an_unknown_minor_or_a_disagreeing_version_is_refused)
{
    static const struct at f[] = { { 32, 912 } };
    build(16, f, 1);
    struct py_layout l;
    const char *why = NULL;
    cr_expect_eq(debug_offsets_layout((uintptr_t)image, 16, &l, &why), -1);
    cr_expect(why && strstr(why, "no mirror"), "why: %s", why ? why : "(null)");
    build(14, f, 1);
    why = NULL;
    cr_expect_eq(debug_offsets_layout((uintptr_t)image, 15, &l, &why), -1);
    cr_expect(why && strstr(why, "disagrees"), "why: %s", why ? why : "(null)");
}
