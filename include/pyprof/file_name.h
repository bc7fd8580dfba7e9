/*
 * pyprof/file_name.h — the names of profile files (pyprof(5), FILES):
 * <prog>.<pid>.<image>.zst, or for a time segment of the image's profile
 * <prog>.<pid>.<image>.<seq>.zst, image being 16 hex digits and seq at
 * least 6 decimal ones.  Read by pyprof-run (which processes still write,
 * which segments to delete) and by pyprof-merge (which files are one
 * image's segments).  Only a name: what the file holds is its header's.
 */
#ifndef PYPROF_FILE_NAME_H
#define PYPROF_FILE_NAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pp_file_name {
    long pid;
    uint64_t image;
    size_t image_end;   /* length of <prog>.<pid>.<image>: the image's key */
    int segment;        /* the name has a <seq> */
    uint32_t seq;
};

/* Whether name (a base name) is a profile file's; fills *out if so. */
static inline int pp_file_name_parse(const char *name, struct pp_file_name *out)
{
    size_t len = strlen(name);
    if (len < 4 || strcmp(name + len - 4, ".zst"))
        return 0;
    size_t end = len - 4;                       /* after the last field */
    size_t dot = end;
    while (dot > 0 && name[dot - 1] != '.')
        dot--;
    if (!dot)
        return 0;
    out->segment = 0;
    out->seq = 0;
    size_t digits = end - dot;
    int all_dec = digits >= 6 && digits <= 10;
    for (size_t i = dot; all_dec && i < end; i++)
        all_dec = name[i] >= '0' && name[i] <= '9';
    if (all_dec) {
        uint64_t v = 0;
        for (size_t i = dot; i < end; i++)
            v = v * 10 + (uint64_t)(name[i] - '0');
        if (v > UINT32_MAX)
            return 0;
        out->segment = 1;
        out->seq = (uint32_t)v;
        end = dot - 1;
        dot = end;
        while (dot > 0 && name[dot - 1] != '.')
            dot--;
        if (!dot)
            return 0;
    }
    if (end - dot != 16)
        return 0;
    uint64_t image = 0;
    for (size_t i = dot; i < end; i++) {
        char c = name[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return 0;
        image = image << 4 | (uint64_t)d;
    }
    out->image = image;
    out->image_end = end;
    size_t pend = dot - 1, pstart = pend;
    while (pstart > 0 && name[pstart - 1] != '.')
        pstart--;
    if (!pstart || pstart == pend || pend - pstart > 8)
        return 0;
    long pid = 0;
    for (size_t i = pstart; i < pend; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        pid = pid * 10 + (name[i] - '0');
    }
    out->pid = pid;
    return 1;
}

/* Appends text, or v in decimal (at least width digits, zero-padded) or
 * in 16 hex digits, to dst (cap bytes, *len used); *len past cap once it
 * does not fit.  By hand rather than with snprintf: a fork child that
 * names its file runs no more of the C library than it must (each page
 * of code it has not run since the fork is a page fault). */
static inline void pp_name_put(char *dst, size_t cap, size_t *len, const char *text)
{
    for (; *text; text++, (*len)++)
        if (*len + 1 < cap)
            dst[*len] = *text;
        else
            *len = cap;
}

static inline void pp_name_put_dec(char *dst, size_t cap, size_t *len,
                                   uint64_t v, unsigned width)
{
    char d[24];
    unsigned n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < sizeof d);
    while (n < width && n < sizeof d)
        d[n++] = '0';
    char s[25];
    for (unsigned i = 0; i < n; i++)
        s[i] = d[n - 1 - i];
    s[n] = 0;
    pp_name_put(dst, cap, len, s);
}

static inline void pp_name_put_hex16(char *dst, size_t cap, size_t *len, uint64_t v)
{
    char s[17];
    for (int i = 15; i >= 0; i--, v >>= 4)
        s[i] = "0123456789abcdef"[v & 15];
    s[16] = 0;
    pp_name_put(dst, cap, len, s);
}

/* DIR/<prog>.<pid>.<image>.zst, or with segment DIR/<prog>.<pid>.<image>.<seq>.zst,
 * into dst; 0, or -1 (dst empty) when it does not fit in cap. */
static inline int pp_file_name_format(char *dst, size_t cap, const char *dir,
                                      const char *prog, long pid, uint64_t image,
                                      int segment, uint32_t seq)
{
    size_t len = 0;
    if (!cap)
        return -1;
    pp_name_put(dst, cap, &len, dir);
    pp_name_put(dst, cap, &len, "/");
    pp_name_put(dst, cap, &len, prog);
    pp_name_put(dst, cap, &len, ".");
    pp_name_put_dec(dst, cap, &len, (uint64_t)pid, 1);
    pp_name_put(dst, cap, &len, ".");
    pp_name_put_hex16(dst, cap, &len, image);
    if (segment) {
        pp_name_put(dst, cap, &len, ".");
        pp_name_put_dec(dst, cap, &len, seq, 6);
    }
    pp_name_put(dst, cap, &len, ".zst");
    if (len >= cap) {
        dst[0] = 0;
        return -1;
    }
    dst[len] = 0;
    return 0;
}

#endif
