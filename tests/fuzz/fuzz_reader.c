/*
 * fuzz_reader.c — libFuzzer entry for pyprof-merge's reader: any bytes
 * must decode to a file with a problem or without, never a crash, a leak
 * or an allocation past the cap.  `make fuzz` builds and runs it, seeded
 * with files from bench/pp-gen.
 */
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rd_file *f = rd_read_mem("fuzz", data, size);
    if (f) {
        /* walk what was decoded, as the model would */
        for (size_t i = 0; i < f->counts_cap; i++) {
            uint32_t n = f->counts[i].count ? f->counts[i].leaf : 0;
            for (int depth = 0; n && depth < 1 << 16; depth++) {
                (void)rd_string(f, f->codes[f->nodes[n].code].qualname);
                n = f->nodes[n].parent;
            }
        }
        rd_free(f);
    }
    return 0;
}
