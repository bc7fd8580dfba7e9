/*
 * pystr.c — PEP 393 strings to UTF-8 without the C API.  The data is read
 * in chunks through the caller's reader into a stack buffer: no heap, and
 * nothing is trusted (length and kind are checked before use).
 */
#include <string.h>

#include "python/pystr.h"

#define MAX_LEN (1 << 20)

size_t pystr_put_utf8(uint32_t cp, char *out)
{
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 63));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 63));
        out[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 63));
    out[2] = (char)(0x80 | ((cp >> 6) & 63));
    out[3] = (char)(0x80 | (cp & 63));
    return 4;
}

int pystr_utf8(const struct pystr_layout *l, pystr_read_fn rd, uintptr_t obj,
               char *out, size_t cap)
{
    int64_t length;
    uint32_t state;
    if (cap < 5 || rd(&length, obj + l->length, sizeof length) != 0 ||
        rd(&state, obj + l->state, sizeof state) != 0)
        return -1;
    unsigned kind = (state >> l->kind_shift) & 7;
    int compact = (state >> l->compact_bit) & 1;
    int ascii = (state >> l->ascii_bit) & 1;
    if (length < 0 || length > MAX_LEN || (kind != 1 && kind != 2 && kind != 4) ||
        (ascii && kind != 1))
        return -1;

    uintptr_t data;
    if (compact)
        data = obj + (ascii ? l->ascii_data : l->compact_data);
    else if (rd(&data, obj + l->legacy_data, sizeof data) != 0 || !data)
        return -1;

    size_t n = 0;
    uint8_t chunk[256];
    const size_t per = sizeof chunk / kind;
    for (int64_t done = 0; done < length; ) {
        size_t want = (size_t)(length - done) < per ? (size_t)(length - done) : per;
        if (rd(chunk, data + (uintptr_t)done * kind, want * kind) != 0)
            return -1;
        for (size_t k = 0; k < want; k++) {
            uint32_t cp;
            if (kind == 1) {
                cp = chunk[k];
            } else if (kind == 2) {
                uint16_t u;
                memcpy(&u, chunk + 2 * k, 2);
                cp = u;
            } else {
                memcpy(&cp, chunk + 4 * k, 4);
            }
            char enc[4];
            size_t e = pystr_put_utf8(cp, enc);
            if (n + e + 1 > cap) {       /* cut at a character boundary */
                out[n] = 0;
                return (int)n;
            }
            memcpy(out + n, enc, e);
            n += e;
        }
        done += (int64_t)want;
    }
    out[n] = 0;
    return (int)n;
}
