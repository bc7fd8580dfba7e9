/*
 * exc_state.c — the exception a thread raises or handles (exc_state.h).
 */
#include <string.h>

#include "guard/safe_read.h"
#include "pyprof/format.h"
#include "python/exc_state.h"
#include "python/layout/layout.h"

/* A handler's item is the innermost with a value; generators and
 * coroutines each add one, most of them empty.  Beyond this many the
 * thread counts as handling none (sys.exc_info() would look further). */
#define ITEMS_MAX 16

static const struct exc_layout *X;
static uintptr_t none_obj;

void exc_state_attach(const struct py_layout *l, uintptr_t none)
{
    /* Offsets checked against GIL builds' headers only. */
    X = l->exc.ts_current && none && l->gil != GIL_NONE ? &l->exc : NULL;
    none_obj = none;
}

unsigned exc_state_flag(const uint8_t *ts)
{
    if (!X)
        return 0;
    uintptr_t cur, item;
    memcpy(&cur, ts + X->ts_current, sizeof cur);
    if (cur)
        return PP_SAMPLE_EXCEPTION;
    memcpy(&item, ts + X->ts_exc_info, sizeof item);
    uint32_t span = (X->item_value > X->item_previous ? X->item_value
                                                      : X->item_previous) + 8;
    for (int i = 0; item && i < ITEMS_MAX; i++) {
        uint8_t raw[32];
        if (safe_read(raw, item, span) != 0)
            return 0;
        uintptr_t value;
        memcpy(&value, raw + X->item_value, sizeof value);
        if (value && value != none_obj)
            return PP_SAMPLE_EXCEPTION;
        memcpy(&item, raw + X->item_previous, sizeof item);
    }
    return 0;
}
