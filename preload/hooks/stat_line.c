/*
 * stat_line.c — editing a /proc/PID/stat line (for stat_filter.c), kept
 * apart so that the unit tests can reach it without the fopen hooks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks/stat_filter.h"

/* Rewrites field 20 (num_threads) of a /proc/PID/stat line in place,
 * minus `ours`.  Field 2 is "(comm)", which may hold spaces and
 * parentheses: the fields after it start after the last ')'.  Returns the
 * new length, or 0 when the line is not what it should be. */
size_t stat_line_hide_threads(char *line, size_t len, size_t cap, long ours)
{
    char *p = NULL;
    for (size_t i = len; i > 0; i--)
        if (line[i - 1] == ')') {
            p = line + i;
            break;
        }
    if (!p)
        return 0;
    /* after ") ": field 3 is the state; field 20 is 17 fields further */
    for (int field = 2; field < 20; field++) {
        p = memchr(p, ' ', (size_t)(line + len - p));
        if (!p)
            return 0;
        p++;
    }
    char *end;
    long n = strtol(p, &end, 10);
    if (end == p || (*end != ' ' && *end != '\n' && *end != 0) || n < 1)
        return 0;
    long shown = n - ours >= 1 ? n - ours : 1;
    char num[24];
    int k = snprintf(num, sizeof num, "%ld", shown);
    size_t tail = (size_t)(line + len - end);
    size_t nlen = (size_t)(p - line) + (size_t)k + tail;
    if (k <= 0 || nlen >= cap)
        return 0;
    memmove(p + k, end, tail);
    memcpy(p, num, (size_t)k);
    line[nlen] = 0;
    return nlen;
}
