/*
 * linetable.h — instruction offset -> source line, as pure functions over
 * a copy of a code object's line table (no interpreter memory is touched,
 * so they are unit-tested on tables taken from real interpreters).
 */
#ifndef PYPROF_LINETABLE_H
#define PYPROF_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/* CPython 3.10 co_linetable: (byte delta, signed line delta) pairs.
 * lasti counts code units (2 bytes each) as f_lasti does in 3.10.
 * Returns the line, or -1 when the instruction has no line or the
 * offset lies past the table. */
int32_t linetable_line_310(const uint8_t *tab, size_t len, int32_t firstlineno,
                           int32_t lasti);

/* CPython 3.11+ location table (Objects/locations.md).  lasti counts code
 * units.  Returns the line, or -1 (no location / past the table). */
int32_t linetable_line_311(const uint8_t *tab, size_t len, int32_t firstlineno,
                           int32_t lasti);

#endif
