/*
 * fuzz_merge.c — libFuzzer entry for pyprof-merge past the reader: the
 * model (the process tree, worker folding, every table's index) and every
 * output format.  The first byte chooses how many profiles the rest is cut
 * into (one to three) and the options (a time window among them); the
 * profiles are merged and written
 * in each format to /dev/null.  An input of odd length names its profiles
 * as one image's time segments (merge/segments.h), read as one profile.  Any bytes must end in a report or a
 * problem, never a crash, a leak or an allocation past the caps.
 * `make fuzz` runs it after the reader's, seeded with bench/pp-gen files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef int (*writer_fn)(FILE *, const struct model *, const struct out_options *);

static const writer_fn writers[] = {
    out_text, out_collapsed, out_json, out_pprof, out_pstats, out_lines,
    out_speedscope, out_gecko, out_html,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    unsigned ctl = data[0];
    data++;
    size--;
    size_t n = ctl % 3 + 1;
    char paths[3][40], *pv[3];
    int fds[3];
    for (size_t i = 0; i < n; i++) {
        size_t a = size * i / n, b = size * (i + 1) / n;
        fds[i] = memfd_create("fuzz-profile", 0);
        if (fds[i] < 0 || write(fds[i], data + a, b - a) != (ssize_t)(b - a))
            __builtin_trap();
        snprintf(paths[i], sizeof paths[i], "/proc/self/fd/%d", fds[i]);
        pv[i] = paths[i];
    }
    static char links[3][80], dir[40];
    int chain = size & 1;
    if (chain && !dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-merge.%d", (int)getpid());
        mkdir(dir, 0700);
    }
    for (size_t i = 0; chain && i < n; i++) {
        snprintf(links[i], sizeof links[i], "%s/python.7.00000000000000ab.%06zu.zst", dir,
                 n - i);
        unlink(links[i]);
        if (symlink(paths[i], links[i]) != 0)
            __builtin_trap();
        pv[i] = links[i];
    }
    /* a window from the run's start, or its last part, of a length from
     * the control byte: the two readings (window.h) on any bytes */
    struct m_window win = { { W_NONE, 0 }, { W_NONE, 0 } };
    if (ctl & 0x80) {
        uint64_t len = (uint64_t)(ctl & 0x38) * 25000000ULL;
        if (ctl & 0x40)
            win.from = (struct w_bound){ W_BEFORE_END, len };
        else
            win.until = (struct w_bound){ W_AFTER_START, len };
    }
    struct m_options mo = {
        .window = &win,
        .mode = (enum m_mode)((ctl >> 2) % M_NMODES),
        .fold_workers = ctl >> 4 & 1,
        .exclude_idle = ctl >> 5 & 1,
        .all_modes = 1,
    };
    struct model *m = model_build(pv, n, &mo, 1);
    if (m && !model_empty(m)) {
        FILE *o = fopen("/dev/null", "w");
        struct out_options oo = { .group = (enum out_group)((ctl >> 6) % 3), .top = 5 };
        for (size_t w = 0; o && w < sizeof writers / sizeof *writers; w++)
            writers[w](o, m, &oo);
        if (o) {
            out_diff_text(o, m, m, &oo);
            out_html_diff(o, m, m, &oo);
            fclose(o);
        }
    }
    model_free(m);
    for (size_t i = 0; i < n; i++) {
        if (chain)
            unlink(links[i]);
        close(fds[i]);
    }
    return 0;
}
