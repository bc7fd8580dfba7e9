/*
 * framecache.c — CPython 3.15's last_profiled_frame, used in-process
 * (framecache.h says how, and why it is sound).
 */
#include <string.h>

#include "python/framecache.h"
#include "guard/safe_read.h"

#define OWNED_BY_THREAD 0      /* popped through the interpreter's update */

static uint32_t off_anchor, off_seq;       /* 0 = no frame cache */
static uintptr_t static_lo, static_hi;
static int other_writer;                   /* seen: cache off for good */

void framecache_init(uint32_t ts_anchor, uint32_t ts_anchor_seq,
                     uintptr_t runtime, uintptr_t runtime_size)
{
    /* The two fields are read in one copy. */
    int adjacent = ts_anchor_seq == ts_anchor + sizeof(uintptr_t);
    off_anchor = adjacent ? ts_anchor : 0;
    off_seq = ts_anchor_seq;
    static_lo = runtime;
    static_hi = runtime + runtime_size;
    other_writer = 0;
}

int framecache_usable(uintptr_t tstate)
{
    return off_anchor && !other_writer && tstate >= static_lo &&
           tstate + off_seq + sizeof(uintptr_t) <= static_hi;
}

int framecache_now(uintptr_t tstate, uintptr_t now[2])
{
    return safe_read(now, tstate + off_anchor, 2 * sizeof *now) == 0 ? 0 : -1;
}

static uintptr_t word(const uint8_t *ts, uint32_t off)
{
    uintptr_t v;
    memcpy(&v, ts + off, sizeof v);
    return v;
}

/* Whether (anchor, seq) shows another writer: the interpreter changes
 * the anchor only with the count, so under the count read just after our
 * last write the anchor can only be what we wrote. */
static int other_wrote(const struct fc_anchor *a, uintptr_t anchor,
                       uintptr_t seq)
{
    if (a->written && seq == a->wrote_seq && anchor != a->wrote)
        other_writer = 1;
    return other_writer;
}

uintptr_t framecache_stop(struct fc_anchor *a, const uint8_t *ts,
                          const struct raw_frame *outer, unsigned depth,
                          unsigned *idx)
{
    uintptr_t now = word(ts, off_anchor), seq = word(ts, off_seq);
    int ok = a->trusted && !other_wrote(a, now, seq) && a->idx < depth &&
             outer[a->idx].addr == a->addr;
    a->trusted = 0;
    if (!ok)
        return 0;
    /* Each counted move popped the anchor frame and put the anchor on its
     * caller.  Only a frame the thread owns is sure to move it when
     * popped, and only a caller linked directly is where it goes. */
    unsigned i = a->idx;
    for (uintptr_t pops = seq - a->seq; pops; pops--) {
        if (i == 0 || outer[i].owner != OWNED_BY_THREAD || outer[i].shims_below)
            return 0;
        i--;
    }
    if (outer[i].addr != now || outer[i].owner != OWNED_BY_THREAD)
        return 0;
    *idx = i;
    return now;
}

int framecache_held(struct fc_anchor *a, const uint8_t *ts,
                    const uintptr_t now[2], unsigned idx)
{
    if (now[0] != word(ts, off_anchor) || now[1] != word(ts, off_seq))
        return 0;
    a->addr = now[0];
    a->seq = now[1];
    a->idx = idx;
    a->trusted = 1;
    return 1;
}

void framecache_prove(struct fc_anchor *a, const uint8_t *ts,
                      const uintptr_t now[2], const struct raw_frame *outer,
                      unsigned depth)
{
    a->trusted = 0;
    if (!now[0] || now[0] != word(ts, off_anchor) ||
        now[1] != word(ts, off_seq) || other_wrote(a, now[0], now[1]))
        return;
    for (unsigned i = depth; i-- > 0; )
        if (outer[i].addr == now[0]) {
            if (outer[i].owner == OWNED_BY_THREAD)
                framecache_held(a, ts, now, i);
            return;
        }
}

int framecache_pick(const struct raw_frame *outer, unsigned depth)
{
    for (unsigned i = depth; i-- > 0; )
        if (outer[i].owner == OWNED_BY_THREAD)
            return (int)i;
    return -1;
}

void framecache_write(struct fc_anchor *a, uintptr_t tstate,
                      const struct raw_frame *outer, unsigned idx)
{
    uintptr_t now[2];
    a->trusted = 0;
    if (!framecache_usable(tstate) || framecache_now(tstate, now) != 0 ||
        other_wrote(a, now[0], now[1]))
        return;
    /* Static storage: always mapped and always a thread state.  One
     * aligned word; the interpreter's own update of it may race with this
     * store, which only makes the next proof fail. */
    *(volatile uintptr_t *)(tstate + off_anchor) = outer[idx].addr;
    a->written = framecache_now(tstate, now) == 0 && now[0] == outer[idx].addr;
    a->wrote = now[0];
    a->wrote_seq = now[1];
}
