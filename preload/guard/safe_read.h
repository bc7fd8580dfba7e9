/*
 * safe_read.h — the one fault-tolerant primitive through which every read
 * of interpreter memory goes.  A read of an unmapped or freed address
 * returns -1; it never crashes the host.
 *
 * Fast path: memcpy guarded by a SIGSEGV/SIGBUS handler (sigsetjmp in the
 * sampler thread).  sigchain.c interposes sigaction()/signal() so that the
 * application's and libraries' handlers (faulthandler, their own) are kept
 * and called exactly as the kernel would call them, while ours stays in
 * front.  If someone bypasses the interposition (raw rt_sigaction) the
 * periodic ownership check switches to the slow path, process_vm_readv on
 * ourselves, which the kernel bounds-checks.
 */
#ifndef PYPROF_SAFE_READ_H
#define PYPROF_SAFE_READ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Installs the guard.  Called once in a Python process, from the
 * constructor, before the sampler starts.  Returns 0 on success. */
int safe_read_init(void);

/* Called by the sampler thread once per tick: if another component took
 * SIGSEGV/SIGBUS behind our back, fall back to the syscall path for good. */
void safe_read_check_owner(void);

/* Copies n bytes from address src into dst.  0 on success, -1 on fault. */
int safe_read_slow(void *dst, uintptr_t src, size_t n);

/* The guard of the current guarded section (see below); NULL outside one.
 * Only the sampler thread ever sets it. */
extern __thread sigjmp_buf *pp_guard_env __attribute__((tls_model("initial-exec")));

static inline int safe_read_plausible(uintptr_t src, size_t n)
{
    /* x86_64 user space ends below 2^47; anything else faults with a
     * general protection error, which is cheaper to refuse here. */
    return src >= 4096 && src + n >= src && src + n <= (1ULL << 47);
}

static inline int safe_read(void *dst, uintptr_t src, size_t n)
{
    if (pp_guard_env && safe_read_plausible(src, n)) {
        memcpy(dst, (const void *)src, n);
        return 0;
    }
    return safe_read_slow(dst, src, n);
}

static inline int safe_read_ptr(uintptr_t src, uintptr_t *out)
{
    return safe_read(out, src, sizeof *out);
}

/* A guarded section: a run of reads that pays for one sigsetjmp instead
 * of one per read (a 900-frame walk is 900 reads).  A fault anywhere in it
 * returns to the sigsetjmp, which must be in the caller's own frame:
 *
 *     sigjmp_buf env;
 *     if (sigsetjmp(env, 0)) { safe_section_faulted(); return -1; }
 *     safe_section_arm(&env);
 *     ... safe_read() only: no other calls, no allocation, no locks ...
 *     safe_section_end();
 *
 * Nothing but reads may run inside: a fault in malloc or in our own code
 * must stay a crash, not be swallowed.  On the syscall paths arming is a
 * no-op and every read checks itself. */
void safe_section_arm(sigjmp_buf *env);
void safe_section_faulted(void);
static inline void safe_section_end(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pp_guard_env = NULL;
}

/* Asks the CPU to start loading the cache lines of [lo, hi), to be read
 * soon with safe_read.  A prefetch is a hint: it never faults (one for an
 * unmapped, uncacheable or write-combining address is dropped) and loads
 * nothing into the program, so it needs no guard.  A walk whose every read
 * misses (lines the program just wrote on another CPU) then waits for
 * several misses at once rather than one after another. */
static inline void safe_read_prefetch(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t a = lo & ~(uintptr_t)63; a < hi; a += 64)
        __builtin_prefetch((const void *)a);
}

/* Faults taken (reads refused) since start, and whether the fast path is
 * in use; for the log and the counters. */
uint64_t safe_read_faults(void);
int safe_read_fast(void);

#endif
