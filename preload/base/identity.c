/* identity.c — this image's identity (identity.h) and its unique ids. */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/identity.h"

static char preload_path[4096];
struct pp_state pp_state PP_CHILD_WRITES = { .preload_path = preload_path };

uint64_t pp_new_uid(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != sizeof v || v == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
            ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&v;
    }
    return v ? v : 1;
}

/* splitmix64's finalizer: a bijection of 64 bits that spreads each input
 * bit over all output bits. */
static uint64_t mix64(uint64_t v)
{
    v ^= v >> 30;
    v *= 0xbf58476d1ce4e5b9ULL;
    v ^= v >> 27;
    v *= 0x94d049bb133111ebULL;
    return v ^ (v >> 31);
}

uint64_t pp_child_uid(uint64_t parent, pid_t pid, uint64_t at_ns)
{
    uint64_t v = mix64(parent ^ mix64(((uint64_t)(uint32_t)pid << 32) ^ at_ns));
    return v ? v : 1;
}

void pp_format_parent(char *buf, uint64_t uid, int how)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        buf[i] = hex[(uid >> (60 - 4 * i)) & 15];
    buf[16] = ':';
    buf[17] = (char)('0' + how);
    buf[18] = 0;
}
