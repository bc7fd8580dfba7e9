/*
 * dlopen.c — profiles interpreters that arrive by dlopen (embedders,
 * bootloaders, uwsgi's plugin) without changing how dlopen finds files.
 *
 * glibc's dlopen searches for a bare name ("libfoo.so", no '/') with the
 * RPATH/RUNPATH of the object that called it, found from its return
 * address.  A C wrapper would make this library the caller and lose the
 * caller's $ORIGIN paths (cuDNN, CUDA, conda and nix builds load their
 * parts that way).  So dlopen here is a small stub: a bare name goes
 * straight on to glibc by a jump, with the caller's return address still
 * in place; a path (with '/', found without any search) goes through the
 * C wrapper, which looks for an interpreter once the file is loaded.  A
 * bare-name load is looked at later (hooks_dlopen_check): when the next
 * thread-local key is created (CPython creates its keys as it starts, long
 * before it is initialized), at the next path load, or at the next fork.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/identity.h"
#include "hooks/hooks.h"
#include "python/asyncio_tasks.h"
#include "sample/lifecycle.h"

typedef void *(*dlopen_fn)(const char *, int);

/* Reached from the stub below only. */
int dlopen_route(const char *file);
void *dlopen_wrapped(const char *file, int mode);

/* Read by the stub below: hidden, so reached PC-relative. */
PP_START_WRITES __attribute__((visibility("hidden"))) dlopen_fn real_dlopen;
static volatile int unchecked;     /* a bare-name load since the last look */
PP_START_WRITES static void (*detect_python)(void);

void hooks_dlopen_init(void (*detect)(void))
{
    detect_python = detect;
    real_dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
}

/* Looks for an interpreter if none was seen yet. */
static void detect_if_unseen(void)
{
    if (!pp_profile_seen() && detect_python)
        detect_python();
}

/* Which way a dlopen goes: 0 = straight on to glibc, 1 = the wrapper. */
__attribute__((visibility("hidden"), used))
int dlopen_route(const char *file)
{
    if (!real_dlopen)          /* before our constructor: no stub jump */
        return 1;
    if (file && !strchr(file, '/')) {
        if (!pp_profile_seen())
            unchecked = 1;
        return 0;
    }
    return 1;
}

__attribute__((visibility("hidden"), used))
void *dlopen_wrapped(const char *file, int mode)
{
    if (!real_dlopen)
        real_dlopen = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
    void *h = real_dlopen ? real_dlopen(file, mode) : NULL;
    if (h) {
        detect_if_unseen();
        asyncio_tasks_loaded();     /* an extension module: _asyncio? */
    }
    return h;
}

typedef int (*key_create_fn)(pthread_key_t *, void (*)(void *));

PP_EXPORT int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    static key_create_fn real;
    if (!real)
        real = (key_create_fn)dlsym(RTLD_NEXT, "pthread_key_create");
    hooks_dlopen_check();
    return real(key, destructor);
}

void hooks_dlopen_check(void)
{
    /* Only in the image itself (never a vfork child sharing our memory). */
    /* Kept armed until an interpreter shows up: a library's constructors
     * run before dlopen makes it visible to symbol lookups. */
    if (unchecked && getpid() == pp_state.pid)
        detect_if_unseen();
}

/* x86_64 SysV: file in %rdi, mode in %esi.  On entry %rsp is 8 mod 16;
 * three slots bring it to 0 mod 16 for the call. */
__asm__(
    ".text\n"
    ".globl dlopen\n"
    ".type dlopen, @function\n"
    "dlopen:\n"
    "    .cfi_startproc\n"
    "    endbr64\n"
    "    push %rdi\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    push %rsi\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    sub $8, %rsp\n"
    "    .cfi_adjust_cfa_offset 8\n"
    "    call dlopen_route\n"
    "    add $8, %rsp\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    pop %rsi\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    pop %rdi\n"
    "    .cfi_adjust_cfa_offset -8\n"
    "    test %eax, %eax\n"
    "    jnz 1f\n"
    "    jmp *real_dlopen(%rip)\n"
    "1:  jmp dlopen_wrapped\n"
    "    .cfi_endproc\n"
    ".size dlopen, .-dlopen\n");
