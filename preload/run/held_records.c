/*
 * held_records.c — records pyprof-run could not write into the output
 * directory, kept for its summary and its merges (held_records.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pyprof/unprofiled.h"
#include "run/held_records.h"

static struct held { char *text; size_t len; } *held;
static size_t nheld, cap_held;
static char spill_dir[PATH_MAX];
static int spilled;

void held_records_keep(const char *rec, size_t len)
{
    if (nheld >= UNPROF_MAX_RECORDS || len > PP_UNPROF_MAX)
        return;
    if (nheld == cap_held) {
        size_t cap = cap_held ? cap_held * 2 : 16;
        struct held *h = realloc(held, cap * sizeof *h);
        if (!h)
            return;
        held = h;
        cap_held = cap;
    }
    char *copy = malloc(len);
    if (!copy)
        return;
    memcpy(copy, rec, len);
    held[nheld++] = (struct held){ copy, len };
}

size_t held_records_count(void) { return nheld; }

const char *held_records_spill(void)
{
    if (spilled)
        return spill_dir[0] ? spill_dir : NULL;
    spilled = 1;
    if (!nheld)
        return NULL;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if (snprintf(spill_dir, sizeof spill_dir, "%s/pyprof-run.records.XXXXXX", tmp) >=
            (int)sizeof spill_dir || !mkdtemp(spill_dir)) {
        spill_dir[0] = 0;
        return NULL;
    }
    size_t written = 0;
    for (size_t i = 0; i < nheld; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%zu%s", spill_dir, i, PP_UNPROF_SUFFIX);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            continue;
        if (write(fd, held[i].text, held[i].len) == (ssize_t)held[i].len)
            written++;
        else
            unlink(path);
        close(fd);
    }
    if (!written) {
        rmdir(spill_dir);
        spill_dir[0] = 0;
        return NULL;
    }
    return spill_dir;
}

void held_records_append(struct unprofiled **u, size_t *n)
{
    if (!nheld)
        return;
    struct unprofiled *more = realloc(*u, (*n + nheld) * sizeof **u);
    if (!more)
        return;
    *u = more;
    for (size_t i = 0; i < nheld; i++) {
        char err[128];
        if (unprofiled_parse(held[i].text, held[i].len, &more[*n], err, sizeof err) == 0)
            (*n)++;
    }
}

void held_records_cleanup(void)
{
    if (!spill_dir[0])
        return;
    for (size_t i = 0; i < nheld; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%zu%s", spill_dir, i, PP_UNPROF_SUFFIX);
        unlink(path);
    }
    rmdir(spill_dir);
    spill_dir[0] = 0;
}
