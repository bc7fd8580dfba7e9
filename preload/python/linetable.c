/*
 * linetable.c — CPython's two line-table formats.  Both decoders walk the
 * table from the start (tables are short and the caller caches the last
 * answer per code object) and never read past len: the bytes come from
 * another thread's memory and may be garbage.  No answer is below -1:
 * real code has no negative line, and garbage must not make one.
 */
#include "python/linetable.h"

int32_t linetable_line_310(const uint8_t *tab, size_t len, int32_t firstlineno,
                           int32_t lasti)
{
    if (lasti < 0)
        return firstlineno < 0 ? -1 : firstlineno;
    /* Pairs of (bytecode bytes covered, signed line delta); -128 = no line. */
    int64_t addr = (int64_t)lasti * 2, end = 0;
    int32_t line = firstlineno;
    for (size_t i = 0; i + 1 < len; i += 2) {
        end += tab[i];
        int8_t d = (int8_t)tab[i + 1];
        int no_line = d == -128;
        if (!no_line)
            line += d;
        if (addr < end)
            return no_line || line < 0 ? -1 : line;
    }
    return -1;
}

/* 6-bit little-endian groups, bit 6 set on all but the last. */
static int varint(const uint8_t *tab, size_t len, size_t *i, uint32_t *out)
{
    uint32_t v = 0;
    for (unsigned shift = 0; *i < len && shift < 32; shift += 6) {
        uint8_t b = tab[(*i)++];
        v |= (uint32_t)(b & 63) << shift;
        if (!(b & 64)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int svarint(const uint8_t *tab, size_t len, size_t *i, int32_t *out)
{
    uint32_t v;
    if (varint(tab, len, i, &v) != 0)
        return -1;
    *out = (v & 1) ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
    return 0;
}

int32_t linetable_line_311(const uint8_t *tab, size_t len, int32_t firstlineno,
                           int32_t lasti)
{
    if (lasti < 0)
        return firstlineno < 0 ? -1 : firstlineno;
    int64_t end = 0;
    int32_t line = firstlineno;
    size_t i = 0;
    while (i < len) {
        uint8_t first = tab[i++];
        if (!(first & 0x80))
            return -1;                 /* not at an entry: corrupt */
        int code = (first >> 3) & 15;
        int units = (first & 7) + 1;
        int32_t entry_line = line, delta = 0;
        int has_line = 1;
        uint32_t skip;
        switch (code) {
        case 15:                        /* no location */
            has_line = 0;
            break;
        case 14:                        /* long form */
            if (svarint(tab, len, &i, &delta) != 0 ||
                varint(tab, len, &i, &skip) != 0 ||
                varint(tab, len, &i, &skip) != 0 ||
                varint(tab, len, &i, &skip) != 0)
                return -1;
            break;
        case 13:                        /* no column */
            if (svarint(tab, len, &i, &delta) != 0)
                return -1;
            break;
        case 10: case 11: case 12:      /* one-line form */
            delta = code - 10;
            i += 2;
            break;
        default:                        /* short form: same line */
            i += 1;
            break;
        }
        if (has_line) {
            line += delta;
            entry_line = line;
        }
        end += units;
        if (lasti < end)
            return has_line && entry_line >= 0 ? entry_line : -1;
    }
    return -1;
}
