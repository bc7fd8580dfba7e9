/*
 * pp-flushfd — what a profile flush costs in system calls, by how the
 * library holds the file: an fd kept open (the sampler's private fd table)
 * against open + fstat (the identity check) + write + close at every
 * flush (where no private table can be had).
 *
 *     pp-flushfd DIR BYTES ROUNDS
 *
 * Appends BYTES per flush (a flush at 100 Hz and 200 ms holds a few KiB)
 * to a file in DIR, ROUNDS times each way, alternating, and prints
 * "kept_ns N" and "reopen_ns N": the median wall time of one flush.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pp-flushfd DIR BYTES ROUNDS\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/pp-flushfd.%d", argv[1], (int)getpid());
    size_t bytes = strtoul(argv[2], NULL, 10);
    int rounds = atoi(argv[3]);
    if (!bytes || rounds <= 0)
        return 2;
    char *buf = calloc(1, bytes);
    uint64_t *kept = calloc((size_t)rounds, sizeof *kept),
             *reopen = calloc((size_t)rounds, sizeof *reopen);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (!buf || !kept || !reopen || fd < 0) {
        perror("pp-flushfd");
        return 1;
    }
    struct stat made;
    fstat(fd, &made);
    for (int i = 0; i < rounds; i++) {
        uint64_t t0 = now_ns();
        if (write(fd, buf, bytes) != (ssize_t)bytes)
            return 1;
        uint64_t t1 = now_ns();
        int f = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (f < 0 || fstat(f, &st) != 0 || st.st_ino != made.st_ino ||
            write(f, buf, bytes) != (ssize_t)bytes)
            return 1;
        close(f);
        uint64_t t2 = now_ns();
        kept[i] = t1 - t0;
        reopen[i] = t2 - t1;
    }
    close(fd);
    unlink(path);
    qsort(kept, (size_t)rounds, sizeof *kept, cmp_u64);
    qsort(reopen, (size_t)rounds, sizeof *reopen, cmp_u64);
    printf("kept_ns %llu\nreopen_ns %llu\n",
           (unsigned long long)kept[rounds / 2],
           (unsigned long long)reopen[rounds / 2]);
    return 0;
}
