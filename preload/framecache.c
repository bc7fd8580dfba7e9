/*
 * framecache.c — CPython 3.15's last_profiled_frame, used in-process
 * (framecache.h says how, and why it is sound).
 */
#include <string.h>

#include "framecache.h"
#include "safe_read.h"

#define OWNED_BY_THREAD 0      /* popped through the interpreter's update */

static uint32_t off_anchor, off_seq;       /* 0 = no frame cache */
static uintptr_t static_lo, static_hi;

void framecache_init(uint32_t ts_anchor, uint32_t ts_anchor_seq,
                     uintptr_t runtime, uintptr_t runtime_size)
{
    off_anchor = ts_anchor;
    off_seq = ts_anchor_seq;
    static_lo = runtime;
    static_hi = runtime + runtime_size;
}

int framecache_usable(uintptr_t tstate)
{
    return off_anchor && tstate >= static_lo &&
           tstate + off_seq + sizeof(uintptr_t) <= static_hi;
}

static uintptr_t word(const uint8_t *ts, uint32_t off)
{
    uintptr_t v;
    memcpy(&v, ts + off, sizeof v);
    return v;
}

uintptr_t framecache_stop(const struct fc_anchor *a, const uint8_t *ts,
                          const struct raw_frame *outer, unsigned depth,
                          unsigned *idx)
{
    if (!a->addr || a->idx >= depth || outer[a->idx].addr != a->addr)
        return 0;
    uintptr_t now = word(ts, off_anchor), pops = word(ts, off_seq) - a->seq;
    /* Each pop moves the anchor one link down the chain we saw.  Only
     * frames the thread owns are known to move it whenever they are
     * popped: the anchor may pass only those, linked directly (no shim in
     * between), and stop only at one. */
    unsigned i = a->idx;
    for (; pops; pops--) {
        if (i == 0 || outer[i].shims_below || outer[i].owner != OWNED_BY_THREAD)
            return 0;
        i--;
    }
    if (outer[i].addr != now || outer[i].owner != OWNED_BY_THREAD)
        return 0;
    *idx = i;
    return now;
}

int framecache_unmoved(uintptr_t tstate, const uint8_t *ts)
{
    uintptr_t now[2];
    if (off_seq != off_anchor + sizeof(uintptr_t))
        return 0;
    return safe_read(now, tstate + off_anchor, sizeof now) == 0 &&
           now[0] == word(ts, off_anchor) && now[1] == word(ts, off_seq);
}

int framecache_holds(const struct fc_anchor *a, const uint8_t *ts,
                     unsigned idx)
{
    return a->addr && a->idx == idx && word(ts, off_anchor) == a->addr &&
           word(ts, off_seq) == a->seq;
}

int framecache_pick(const struct raw_frame *outer, unsigned depth)
{
    for (unsigned i = depth; i-- > 0; )
        if (outer[i].owner == OWNED_BY_THREAD)
            return (int)i;
    return -1;
}

void framecache_anchor(struct fc_anchor *a, uintptr_t tstate,
                       const struct raw_frame *outer, unsigned idx)
{
    a->addr = 0;
    if (!framecache_usable(tstate))
        return;
    /* Static storage: always mapped and always a thread state.  One
     * aligned word; the interpreter's own update of it may race with this
     * store, and the read-back below sees which one won. */
    volatile uintptr_t *slot = (volatile uintptr_t *)(tstate + off_anchor);
    *slot = outer[idx].addr;
    uintptr_t now[2];
    if (safe_read(now, tstate + off_anchor, sizeof now) != 0 ||
        now[0] != outer[idx].addr)
        return;
    a->addr = now[0];
    a->seq = now[1];
    a->idx = idx;
}
