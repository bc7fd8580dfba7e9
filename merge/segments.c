/*
 * segments.c — files grouped into the images' chains of segments
 * (segments.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyprof/file_name.h"
#include "segments.h"

struct entry {
    size_t at;          /* position in the paths given */
    size_t key_len;     /* directory and <prog>.<pid>.<image>; 0: no segment */
    uint32_t seq;
    char *const *path;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (!x->key_len || !y->key_len || x->key_len != y->key_len)
        return x->key_len != y->key_len ? (x->key_len < y->key_len ? -1 : 1)
                                        : (x->at > y->at) - (x->at < y->at);
    int c = memcmp(*x->path, *y->path, x->key_len);
    if (c)
        return c;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static int same_image(const struct entry *a, const struct entry *b)
{
    return a->key_len && a->key_len == b->key_len &&
           !memcmp(*a->path, *b->path, a->key_len);
}

static void oom(void)
{
    fprintf(stderr, "pyprof-merge: out of memory\n");
    exit(2);
}

size_t segments_group(char *const *paths, size_t n, struct seg_chain **out)
{
    struct entry *e = calloc(n ? n : 1, sizeof *e);
    struct seg_chain *c = calloc(n ? n : 1, sizeof *c);
    size_t *first = calloc(n ? n : 1, sizeof *first);
    if (!e || !c || !first)
        oom();
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        struct pp_file_name fn;
        e[i] = (struct entry){ .at = i, .path = &paths[i] };
        if (pp_file_name_parse(base, &fn) && fn.segment) {
            e[i].key_len = (size_t)(base - paths[i]) + fn.image_end;
            e[i].seq = fn.seq;
        }
    }
    qsort(e, n, sizeof *e, cmp_entry);
    size_t nc = 0;
    for (size_t i = 0; i < n; ) {
        size_t j = i + 1;
        while (j < n && same_image(&e[i], &e[j]))
            j++;
        /* i..j: one image's segments by number.  A segment given twice
         * goes, the second time, into a second chain of the image (the
         * third time a third...), read as another profile: as a file
         * given twice is. */
        size_t rounds = 0;
        for (size_t k = i; k < j; ) {
            size_t m = k + 1;
            while (m < j && e[m].seq == e[k].seq)
                m++;
            rounds = m - k > rounds ? m - k : rounds;
            k = m;
        }
        for (size_t r = 0; r < rounds; r++) {
            char **p = malloc((j - i) * sizeof *p);
            if (!p)
                oom();
            size_t np = 0, lo = SIZE_MAX;
            for (size_t k = i; k < j; ) {
                size_t m = k + 1;
                while (m < j && e[m].seq == e[k].seq)
                    m++;
                if (k + r < m) {
                    p[np++] = (char *)*e[k + r].path;
                    lo = e[k + r].at < lo ? e[k + r].at : lo;
                }
                k = m;
            }
            first[nc] = lo;
            c[nc++] = (struct seg_chain){ p, np };
        }
        i = j;
    }
    /* the order given: by each chain's earliest file */
    struct seg_chain *sorted = calloc(n ? n : 1, sizeof *sorted);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    if (!sorted || !order)
        oom();
    for (size_t i = 0; i < nc; i++)
        order[first[i]] = i + 1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (order[i])
            sorted[k++] = c[order[i] - 1];
    free(order);
    free(first);
    free(c);
    free(e);
    *out = sorted;
    return nc;
}

void segments_free(struct seg_chain *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free(c[i].paths);
    free(c);
}
