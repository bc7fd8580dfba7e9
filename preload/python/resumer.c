/*
 * resumer.c — 3.12: who a generator frame with no caller link hands the
 * thread back to (pyprof(7), Consistent stacks).
 *
 * Such a frame is not running: its caller link is set before it runs and
 * cleared when it yields or ends.  The thread then runs its resumer, and
 * the resumer is the thread's innermost frame (or, for a generator driven
 * from C, the frame that called that C code).  That frame is either a
 * generator, coroutine or async generator that is running, and then the
 * innermost one, which tstate->exc_info names (every resumption pushes
 * the resumed one's exception state there and every suspension pops it),
 * or a frame on the thread's data stack, and then its top one (nothing
 * above it: the resumed generator's own calls have returned).  Each of
 * the two is in the other's chain; the innermost is the one whose chain
 * holds the other.
 */
#include "python/resumer.h"

#include "pyprof/format.h"
#include "python/layout/layout.h"
#include "python/walk.h"

#define MAX_CHUNK_FRAMES 4096

static uint8_t owner_of(const struct py_layout *L, uintptr_t f, int *ok)
{
    uint8_t o = 0;
    if (safe_read(&o, f + L->fr_owner, sizeof o) != 0)
        *ok = 0;
    return o;
}

/* Whether target is in the chain that starts at from. */
static int in_chain(const struct py_layout *L, uintptr_t from, uintptr_t target)
{
    int ok = 1;
    for (unsigned hops = 0; from && ok && hops < PP_MAX_DEPTH; hops++) {
        if (from == target)
            return 1;
        uintptr_t up = rd_ptr(from + L->fr_previous, &ok);
        if (up == from)
            return 0;
        from = up;
    }
    return 0;
}

/* The top frame of the data stack's current chunk (0: none), walking it
 * from its base: its frames lie end to end, each co_framesize words.
 * Clears *ok when the walk does not land exactly on the top. */
static uintptr_t data_stack_top(const struct py_layout *L, uintptr_t tstate,
                                int *ok)
{
    const struct resumer_layout *R = &L->resumer;
    uintptr_t chunk = rd_ptr(tstate + R->ts_datastack_chunk, ok);
    uintptr_t top = rd_ptr(tstate + R->ts_datastack_top, ok);
    if (!*ok || !chunk)
        return *ok = 0, 0;
    uintptr_t size = rd_ptr(chunk + R->chunk_size, ok);
    /* The root chunk (no previous) keeps its first word unused. */
    uintptr_t f = chunk + R->chunk_data +
                  (rd_ptr(chunk + R->chunk_previous, ok) ? 0 : sizeof(void *));
    if (!*ok || top < f || top - chunk > size)
        return *ok = 0, 0;
    for (int i = 0; f < top && i < MAX_CHUNK_FRAMES; i++) {
        uintptr_t code = rd_ptr(f + L->fr_code, ok) & ~L->code_tag_mask;
        int32_t words = 0;
        if (!*ok || !code ||
            safe_read(&words, code + R->co_framesize, sizeof words) != 0 ||
            words <= 0 || (uintptr_t)words > (top - f) / sizeof(void *))
            return *ok = 0, 0;
        uintptr_t next = f + (uintptr_t)words * sizeof(void *);
        if (next == top)
            return f;
        f = next;
    }
    if (f != top)
        *ok = 0;
    return 0;
}

uintptr_t resumer_frame(const struct py_layout *L, uintptr_t tstate,
                        uintptr_t gen_frame)
{
    const struct resumer_layout *R = &L->resumer;
    int ok = 1;
    if (!R->ts_exc_info || !gen_frame)
        return 0;
    uintptr_t own = gen_frame - R->gen_iframe + R->gen_exc_state;
    uintptr_t exc = rd_ptr(tstate + R->ts_exc_info, &ok);
    /* Still its own (a yield that has not popped it, a resumption that
     * has pushed it): the one below it is the resumer's.  Not stored yet
     * (0): nothing can be told. */
    if (exc == own)
        exc = rd_ptr(own + R->exc_previous, &ok);
    if (!ok || !exc)
        return 0;
    uintptr_t running = 0;
    if (exc != tstate + R->ts_exc_state) {
        uintptr_t gen = exc - R->gen_exc_state;
        int8_t state = 0;
        running = gen + R->gen_iframe;
        if (safe_read(&state, gen + R->gen_frame_state, sizeof state) != 0 ||
            state != R->executing ||
            owner_of(L, running, &ok) != R->owned_by_generator ||
            !rd_ptr(running + L->fr_previous, &ok) || !ok)
            return 0;
    }
    uintptr_t top = data_stack_top(L, tstate, &ok);
    if (!ok || (top && owner_of(L, top, &ok) != R->owned_by_thread) || !ok)
        return 0;
    if (running && top) {
        if (in_chain(L, running, top))
            return running;
        return in_chain(L, top, running) ? top : 0;
    }
    return running ? running : top;
}
