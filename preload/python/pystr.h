/*
 * pystr.h — a PEP 393 str object -> UTF-8, read straight from memory.
 * The memory reader is a parameter so that the decoder can be unit-tested
 * on object images built in a buffer; in the preload it is safe_read().
 */
#ifndef PYPROF_PYSTR_H
#define PYPROF_PYSTR_H

#include <stddef.h>
#include <stdint.h>

/* Where a str object keeps its fields, per version (layout/layout.h). */
struct pystr_layout {
    uint32_t length;        /* offset of Py_ssize_t length                  */
    uint32_t state;         /* offset of the u32 state bitfield             */
    uint32_t ascii_data;    /* sizeof(PyASCIIObject): compact ASCII data    */
    uint32_t compact_data;  /* sizeof(PyCompactUnicodeObject): compact data */
    uint32_t legacy_data;   /* offset of data.any (non-compact strings)     */
    uint8_t  kind_shift;    /* kind = (state >> kind_shift) & 7             */
    uint8_t  compact_bit;   /* state bit numbers                            */
    uint8_t  ascii_bit;
};

typedef int (*pystr_read_fn)(void *dst, uintptr_t src, size_t n);

/* Writes the string at obj as NUL-terminated UTF-8 into out (cap bytes,
 * cap >= 4).  Strings longer than fits are cut at a character boundary.
 * Returns the number of bytes written (without the NUL), or -1 when obj
 * is unreadable or not a plausible str. */
int pystr_utf8(const struct pystr_layout *l, pystr_read_fn rd, uintptr_t obj,
               char *out, size_t cap);

/* Encodes one code point as UTF-8 into out (4 bytes free); returns bytes,
 * 0 for an invalid code point (surrogates and > 0x10FFFF become U+FFFD). */
size_t pystr_put_utf8(uint32_t cp, char *out);

#endif
