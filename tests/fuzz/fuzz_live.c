/*
 * fuzz_live.c — libFuzzer entry for the live view's picture (merge/live.c)
 * and the reader's following of a growing file (rd_follow): the bytes are
 * written into a file of a fresh directory in two pieces, cut where the
 * first byte says, with a poll after each, and every look (processes, each
 * mode, since the start and recently, by self and by total, one process)
 * is taken.  Any bytes must end in a picture or a problem, never a crash
 * or a leak.  `make fuzz` runs it after the merge's.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    size_t cut = (size - 1) * data[0] / 255;
    data++;
    size--;
    char dir[] = "/tmp/pyprof-fuzz-live.XXXXXX", path[64];
    if (!mkdtemp(dir))
        __builtin_trap();
    snprintf(path, sizeof path, "%s/p.1.0.zst", dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        __builtin_trap();
    struct live *lv = live_new(dir, 5.0);
    for (int piece = 0; piece < 2; piece++) {
        size_t a = piece ? cut : 0, b = piece ? size : cut;
        if (b > a && fwrite(data + a, 1, b - a, f) != b - a)
            __builtin_trap();
        fflush(f);
        live_poll(lv);
        struct live_proc procs[4];
        struct live_func rows[8];
        uint64_t samples;
        size_t np = live_procs(lv, procs, 4);
        for (int mode = MODE_WALL; mode <= MODE_GIL; mode++)
            for (int k = 0; k < 4; k++) {
                struct live_query q = { .mode = (enum m_mode)mode, .since_start = k & 1,
                                        .by_total = k >> 1, .proc = -1 };
                live_funcs(lv, &q, rows, 8, &samples);
                if (np) {
                    q.proc = procs[0].index;
                    live_funcs(lv, &q, rows, 8, &samples);
                }
            }
    }
    fclose(f);
    live_free(lv);
    unlink(path);
    rmdir(dir);
    return 0;
}
