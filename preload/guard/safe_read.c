/*
 * safe_read.c — the one fault-tolerant read of interpreter memory.
 *
 * A guarded memcpy costs ~13 ns per read, process_vm_readv on ourselves
 * ~800 ns (pyprof(7), Reading memory safely).  A sample reads tens of
 * objects, so the guarded copy is the default.  The guard is a sigsetjmp
 * in the reading thread plus the SIGSEGV/SIGBUS handler that sigchain.c
 * keeps in front of everyone else's.  If the handler is ever replaced behind the
 * interposition (a raw rt_sigaction), the owner check moves us to
 * process_vm_readv for good, and if that is forbidden too (seccomp), to
 * pread() on /proc/self/mem.  The kernel bounds-checks both.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/log.h"
#include "base/own_fd.h"
#include "guard/safe_read.h"
#include "guard/sigchain.h"
#include "base/identity.h"

enum read_path { PATH_GUARD, PATH_VM_READV, PATH_PROC_MEM, PATH_NONE };

static enum read_path path = PATH_NONE;
static uint64_t faults;
static int proc_mem_fd = -1;
static pid_t proc_mem_pid;
static dev_t proc_mem_dev;
static ino_t proc_mem_ino;

__thread sigjmp_buf *pp_guard_env __attribute__((tls_model("initial-exec")));

static void guard(int sig, void *info, void *uctx)
{
    sigjmp_buf *env = pp_guard_env;
    (void)sig; (void)uctx;
    /* Only a fault the kernel raised (si_code > 0) is a failed read; one
     * sent with kill() is somebody's signal and goes on down the chain. */
    if (env && ((siginfo_t *)info)->si_code > 0) {
        pp_guard_env = NULL;
        siglongjmp(*env, 1);
    }
}

static int read_guarded(void *dst, uintptr_t src, size_t n)
{
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        faults++;
        return -1;
    }
    pp_guard_env = &env;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    memcpy(dst, (const void *)src, n);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pp_guard_env = NULL;
    return 0;
}

void safe_section_arm(sigjmp_buf *env)
{
    if (path != PATH_GUARD)
        return;
    pp_guard_env = env;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void safe_section_faulted(void)
{
    faults++;
}

/* Our memory named by the calling thread's id, not the process id: once
 * the main thread has ended with pthread_exit (the other threads going
 * on), the process id names a task without memory, and both
 * process_vm_readv and /proc/self/mem fail on it. */
static pid_t self_tid(void) { return (pid_t)syscall(SYS_gettid); }

static int read_vm(void *dst, uintptr_t src, size_t n)
{
    struct iovec l = { dst, n }, r = { (void *)src, n };
    ssize_t got = process_vm_readv(self_tid(), &l, 1, &r, 1, 0);
    if (got == (ssize_t)n)
        return 0;
    faults++;
    return -1;
}

/* The fd is kept only in the sampler's private fd table (own_fd.h); in
 * any other thread, or where there is none, it lives for one read.  A kept
 * one is checked to be what we opened, and reopened after fork (an fd
 * opened before fork reads the parent). */
static int read_proc_mem(void *dst, uintptr_t src, size_t n)
{
    int fd = proc_mem_fd, kept = 1;
    if (!own_fd_keep() || proc_mem_pid != pp_state.pid ||
        !own_fd_is(fd, proc_mem_dev, proc_mem_ino)) {
        fd = open("/proc/thread-self/mem", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        struct stat st;
        kept = own_fd_keep() && fstat(fd, &st) == 0;
        if (kept) {
            proc_mem_fd = fd;
            proc_mem_dev = st.st_dev;
            proc_mem_ino = st.st_ino;
            proc_mem_pid = pp_state.pid;
        }
    }
    int ok = pread(fd, dst, n, (off_t)src) == (ssize_t)n;
    if (!kept)
        close(fd);
    if (ok)
        return 0;
    faults++;
    return -1;
}

int safe_read_slow(void *dst, uintptr_t src, size_t n)
{
    if (!safe_read_plausible(src, n))
        return -1;
    switch (path) {
    case PATH_GUARD:    return read_guarded(dst, src, n);
    case PATH_VM_READV: return read_vm(dst, src, n);
    case PATH_PROC_MEM: return read_proc_mem(dst, src, n);
    default:
        /* Before safe_read_init (version detection in the constructor):
         * a handful of reads, the kernel checks them. */
        return read_vm(dst, src, n);
    }
}

/* Picks the syscall path that works here, for when the guard cannot be
 * trusted. */
static enum read_path syscall_path(void)
{
    uint64_t probe = 0x5059505246ULL, got = 0;
    struct iovec l = { &got, sizeof got }, r = { &probe, sizeof probe };
    if (process_vm_readv(self_tid(), &l, 1, &r, 1, 0) == sizeof got && got == probe)
        return PATH_VM_READV;
    path = PATH_PROC_MEM;
    if (read_proc_mem(&got, (uintptr_t)&probe, sizeof got) == 0 && got == probe)
        return PATH_PROC_MEM;
    return PATH_NONE;
}

/* A fault handed back to the application's handler (sigchain.c): that
 * handler now answers SIGSEGV and SIGBUS, so reads go through the kernel.
 * Async-signal-safe (one probe system call). */
static void guard_handed_back(void)
{
    if (path == PATH_GUARD)
        path = syscall_path();
}

int safe_read_init(void)
{
    sigchain_on_handback(guard_handed_back);
    if (sigchain_install(guard) == 0) {
        path = PATH_GUARD;
        return 0;
    }
    path = syscall_path();
    pp_log(1, "SIGSEGV guard unavailable; reading memory via %s",
           path == PATH_VM_READV ? "process_vm_readv" : "/proc/self/mem");
    return path == PATH_NONE ? -1 : 0;
}

void safe_read_check_owner(void)
{
    if (path != PATH_GUARD)
        return;
    if (sigchain_owns(SIGSEGV) && sigchain_owns(SIGBUS))
        return;
    path = syscall_path();
    pp_log(1, "another component replaced the SIGSEGV/SIGBUS handler without "
              "sigaction(); reading memory via %s from now on",
           path == PATH_VM_READV ? "process_vm_readv" :
           path == PATH_PROC_MEM ? "/proc/self/mem" : "nothing (sampling stops)");
}

uint64_t safe_read_faults(void) { return faults; }
int safe_read_fast(void) { return path == PATH_GUARD; }
