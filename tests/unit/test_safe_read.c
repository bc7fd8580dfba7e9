/*
 * test_safe_read.c — the fault-tolerant read primitive: single reads and
 * guarded sections, on memory that is there, memory that is not, and
 * addresses no process can have.
 *
 * sigchain.c is not linked here (it interposes sigaction for the whole
 * program); these stubs put the guard straight into the kernel, which is
 * what sigchain does when nobody else has a SIGSEGV handler.
 */
#include <criterion/criterion.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard/safe_read.h"
#include "guard/sigchain.h"

static void (*guard_fn)(int, void *, void *);

static void trampoline(int sig, siginfo_t *info, void *uctx)
{
    guard_fn(sig, info, uctx);
}

int sigchain_install(void (*guard)(int, void *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = trampoline;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    guard_fn = guard;
    if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
        return -1;
    return 0;
}

int sigchain_owns(int sig) { (void)sig; return 1; }

static void (*handback_fn)(void);
void sigchain_on_handback(void (*fn)(void)) { handback_fn = fn; }
void sigchain_forward(int sig, void *info, void *uctx)
{
    (void)sig; (void)info; (void)uctx;
}

/* A page that is mapped, followed by one that is not. */
static uint8_t *edge_page(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(p != MAP_FAILED);
    cr_assert(munmap(p + pg, (size_t)pg) == 0);
    memset(p, 0x5a, (size_t)pg);
    return p + pg;               /* first byte that is not there */
}

static void setup(void)
{
    cr_assert(safe_read_init() == 0, "the guard could not be installed");
    cr_assert(safe_read_fast(), "the guarded path is not in use");
}

Test(safe_read, reads_what_is_there_and_refuses_what_is_not, .init = setup)
{
    uint8_t *hole = edge_page();
    uint64_t v = 0;
    cr_expect(safe_read(&v, (uintptr_t)(hole - 8), 8) == 0);
    cr_expect(v == 0x5a5a5a5a5a5a5a5aULL, "read %#llx", (unsigned long long)v);
    uint64_t before = safe_read_faults();
    cr_expect(safe_read(&v, (uintptr_t)hole, 8) == -1, "unmapped page read");
    cr_expect(safe_read(&v, (uintptr_t)(hole - 4), 8) == -1,
              "read straddling into an unmapped page");
    cr_expect(safe_read_faults() == before + 2, "faults %llu -> %llu",
              (unsigned long long)before,
              (unsigned long long)safe_read_faults());
    /* Never-valid addresses are refused without touching them. */
    cr_expect(safe_read(&v, 0, 8) == -1);
    cr_expect(safe_read(&v, 16, 8) == -1);
    cr_expect(safe_read(&v, 1ULL << 47, 8) == -1);
    cr_expect(safe_read(&v, UINTPTR_MAX - 3, 8) == -1);
    cr_expect(safe_read_faults() == before + 2, "refused reads counted as faults");
    /* Still working after the faults. */
    cr_expect(safe_read(&v, (uintptr_t)(hole - 16), 8) == 0);
}

/* Walks a chain of next pointers inside one section, as pyvm walks
 * frames; returns the number of links or -1 on a fault. */
struct link { struct link *next; uint64_t value; };

static int walk(uintptr_t first, uint64_t *sum)
{
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        safe_section_faulted();
        return -1;
    }
    safe_section_arm(&env);
    int n = 0;
    for (uintptr_t p = first; p && n < 100; n++) {
        uint64_t v;
        if (safe_read(&v, p + offsetof(struct link, value), sizeof v) != 0 ||
            safe_read_ptr(p + offsetof(struct link, next), &p) != 0) {
            n = -2;
            break;
        }
        *sum += v;
    }
    safe_section_end();
    return n;
}

Test(safe_read, a_section_survives_a_fault_mid_walk, .init = setup)
{
    uint8_t *hole = edge_page();
    struct link chain[4];
    for (int i = 0; i < 4; i++)
        chain[i] = (struct link){ i < 3 ? &chain[i + 1] : NULL, (uint64_t)i + 1 };
    uint64_t sum = 0;
    cr_expect(walk((uintptr_t)chain, &sum) == 4);
    cr_expect(sum == 10);

    /* The third link points into the unmapped page: the fault returns to
     * the section's start, once, and the guard is disarmed after it. */
    chain[2].next = (struct link *)(void *)(hole + 64);
    uint64_t before = safe_read_faults();
    sum = 0;
    cr_expect(walk((uintptr_t)chain, &sum) == -1, "fault inside a section");
    cr_expect(safe_read_faults() == before + 1);
    cr_expect(pp_guard_env == NULL, "guard left armed after a fault");

    /* A pointer no process can have: refused inside the section too. */
    chain[2].next = (struct link *)(uintptr_t)(1ULL << 50);
    sum = 0;
    cr_expect(walk((uintptr_t)chain, &sum) == -2);
    cr_expect(pp_guard_env == NULL, "guard left armed after the section");

    /* And single reads still guard themselves afterwards. */
    uint64_t v;
    cr_expect(safe_read(&v, (uintptr_t)hole, 8) == -1);
}

/* A real fault handed back to the application's handler (sigchain.c)
 * leaves that handler in front: from then on reads go through the kernel,
 * and still fail cleanly on unmapped memory. */
Test(safe_read, reads_go_through_the_kernel_once_a_fault_was_handed_back)
{
    cr_assert_eq(safe_read_init(), 0);
    cr_assert(safe_read_fast(), "the guard is the first path");
    cr_assert_not_null(handback_fn, "safe_read_init registers no hand-back callback");
    handback_fn();
    cr_assert(!safe_read_fast(), "still the guard after a hand-back");
    uint64_t v = 0x1122334455667788ULL, got = 0;
    cr_assert_eq(safe_read(&got, (uintptr_t)&v, sizeof got), 0);
    cr_assert_eq(got, v);
    cr_assert_neq(safe_read(&got, (uintptr_t)8, sizeof got), 0, "read of page 0 succeeded");
}
