/*
 * sigchain.c — keeps our signal handlers in front without taking anything
 * away from the application (the libsigchain / libjsig idea).
 *
 * sigaction() and signal() are interposed for a small set of signals.  For
 * those, the kernel disposition may be ours while the application sees, and
 * gets called with, exactly the disposition it asked for:
 *
 *   - SIGSEGV, SIGBUS (the "guard" class): ours is always installed, because
 *     safe_read() needs it.  A fault that is not a guarded read is handed
 *     back: the application's handler becomes the kernel disposition and
 *     the faulting instruction, run again, faults straight into it, so that
 *     the handler runs on the program's own stack of frames, none of ours
 *     above it (a crash report that lists the C stack names the fault's own
 *     frame, not this library).  From then on guarded reads are off
 *     (sigchain_on_handback).  SIG_DFL re-faults or re-raises into the
 *     default action (same signal, same core dump); a fault signal sent
 *     with kill() goes to the application's handler through ours.
 *   - terminating signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, ...):
 *     ours is installed only while the application's disposition is SIG_DFL,
 *     so that the profile is finished before the default action ends the
 *     process.  Handlers and SIG_IGN the application sets go straight to the
 *     kernel (SIG_IGN must survive exec; handlers need no help).
 *
 * Everything here is async-signal-safe.  Inactive (pure pass-through) in
 * processes that are not profiled.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/identity.h"
#include "guard/sigchain.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

enum chain_class { CHAIN_NONE = 0, CHAIN_GUARD, CHAIN_FINISH };

struct slot {
    struct sigaction app;     /* what the application believes is installed */
    int ours;                 /* our handler is the kernel disposition      */
};

typedef sighandler_t (*signal_fn)(int, sighandler_t);
typedef int (*siginterrupt_fn)(int, int);
typedef int (*sigignore_fn)(int);
PP_START_WRITES static sigaction_fn real_sigaction_fn;
PP_START_WRITES static signal_fn real_signal_fn, real_sysv_signal_fn, real_sigset_fn;
PP_START_WRITES static siginterrupt_fn real_siginterrupt_fn;
PP_START_WRITES static sigignore_fn real_sigignore_fn;
static volatile int chain_on;

/* glibc's own function: resolved by the constructor (sigchain_init), so
 * that no dlsym runs where it must not (a vfork child, a signal handler);
 * looked up on first use only if another library's constructor called us
 * before ours ran. */
#define NEXT(var, type, name) \
    ((var) ? (var) : ((var) = (type)dlsym(RTLD_NEXT, name)))
static struct slot slots[NSIG];
static void (*guard_hook)(int, void *, void *);
static void (*before_death)(int sig);
static int (*on_sampler_thread)(void);
static void (*on_handback)(void);

void sigchain_on_handback(void (*fn)(void)) { on_handback = fn; }

void sigchain_callbacks(void (*death)(int sig), int (*sampler)(void))
{
    before_death = death;
    on_sampler_thread = sampler;
}

static enum chain_class class_of(int sig)
{
    switch (sig) {
    case SIGSEGV: case SIGBUS:
        return CHAIN_GUARD;
    case SIGINT: case SIGTERM: case SIGHUP: case SIGQUIT: case SIGABRT:
    case SIGUSR1: case SIGUSR2: case SIGALRM: case SIGILL: case SIGFPE:
        return CHAIN_FINISH;
    default:
        return CHAIN_NONE;
    }
}

static int real_sigaction(int sig, const struct sigaction *a, struct sigaction *o)
{
    sigaction_fn real = NEXT(real_sigaction_fn, sigaction_fn, "sigaction");
    return real(sig, a, o);
}

static void on_signal(int sig, siginfo_t *info, void *uctx);

static int install_ours(int sig)
{
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_sigaction = on_signal;
    sigemptyset(&a.sa_mask);
    a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    /* Guarded reads leave the handler with siglongjmp and no mask restore:
     * the signal must not stay blocked in the sampler thread. */
    if (class_of(sig) == CHAIN_GUARD)
        a.sa_flags |= SA_NODEFER;
    if (real_sigaction(sig, &a, NULL) != 0)
        return -1;
    slots[sig].ours = 1;
    return 0;
}

static int is_default(const struct sigaction *a)
{
    return a->sa_handler == SIG_DFL;
}

/* Ends the process the way the kernel's default action would have. */
static void die_by_default(int sig, siginfo_t *info)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    real_sigaction(sig, &dfl, NULL);
    slots[sig].ours = 0;
    /* A fault re-executes the faulting instruction on return and meets the
     * default action there; a sent signal has to be sent again. */
    if (info->si_code <= 0 || class_of(sig) != CHAIN_GUARD) {
        syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
        /* Still blocked if this was not SA_NODEFER: unblock so it lands as
         * soon as we return. */
        sigset_t m;
        sigemptyset(&m);
        sigaddset(&m, sig);
        pthread_sigmask(SIG_UNBLOCK, &m, NULL);
    }
}

void sigchain_forward(int sig, void *vinfo, void *uctx)
{
    siginfo_t *info = vinfo;
    struct sigaction app = slots[sig].app;

    if (app.sa_handler == SIG_IGN) {
        /* The kernel does not let a hardware fault be ignored. */
        if (class_of(sig) != CHAIN_GUARD || info->si_code <= 0)
            return;
        app.sa_handler = SIG_DFL;
    }
    if (is_default(&app)) {
        if (before_death)
            before_death(sig);
        die_by_default(sig, info);
        return;
    }

    /* A fault the kernel raised re-executes its instruction on return:
     * with the application's handler installed, the kernel calls it there,
     * as if we had never been in front.  Guarded reads stop first, since
     * a fault in one would now reach the application. */
    if (class_of(sig) == CHAIN_GUARD && info->si_code > 0) {
        if (on_handback)
            on_handback();
        if (real_sigaction(sig, &app, NULL) == 0) {
            slots[sig].ours = 0;
            return;
        }
    }

    /* Call the application's handler as the kernel would have. */
    sigset_t m = app.sa_mask, old;
    if (!(app.sa_flags & SA_NODEFER))
        sigaddset(&m, sig);
    pthread_sigmask(SIG_BLOCK, &m, &old);
    if (app.sa_flags & SA_RESETHAND) {
        memset(&slots[sig].app, 0, sizeof slots[sig].app);
        slots[sig].app.sa_handler = SIG_DFL;
    }
    if (app.sa_flags & SA_SIGINFO)
        app.sa_sigaction(sig, info, uctx);
    else
        app.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    if (class_of(sig) == CHAIN_GUARD && guard_hook)
        guard_hook(sig, info, uctx);   /* returns only if not a guarded read */
    /* The sampler thread keeps the fault signals unblocked for the guard,
     * so a SIGSEGV or SIGBUS sent with kill() may be given to it: that
     * one belongs to the application's threads. */
    if (info->si_code <= 0 && on_sampler_thread && on_sampler_thread()) {
        syscall(SYS_tgkill, getpid(), getpid(), sig);
        return;
    }
    sigchain_forward(sig, info, uctx);
}

int sigchain_install(void (*guard)(int, void *, void *))
{
    guard_hook = guard;
    for (int sig = 1; sig < NSIG; sig++) {
        enum chain_class c = class_of(sig);
        if (c == CHAIN_NONE)
            continue;
        if (real_sigaction(sig, NULL, &slots[sig].app) != 0)
            return -1;
        if (c == CHAIN_GUARD || is_default(&slots[sig].app))
            if (install_ours(sig) != 0 && c == CHAIN_GUARD)
                return -1;
    }
    chain_on = 1;
    return 0;
}

int sigchain_owns(int sig)
{
    struct sigaction cur;
    if (real_sigaction(sig, NULL, &cur) != 0)
        return 0;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal;
}

void sigchain_init(void)
{
    NEXT(real_sigaction_fn, sigaction_fn, "sigaction");
    NEXT(real_signal_fn, signal_fn, "signal");
    NEXT(real_sysv_signal_fn, signal_fn, "sysv_signal");
    NEXT(real_siginterrupt_fn, siginterrupt_fn, "siginterrupt");
    NEXT(real_sigset_fn, signal_fn, "sigset");
    NEXT(real_sigignore_fn, sigignore_fn, "sigignore");
}

PP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
    enum chain_class c = sig > 0 && sig < NSIG ? class_of(sig) : CHAIN_NONE;
    if (!chain_on || c == CHAIN_NONE)
        return real_sigaction(sig, act, oact);
    /* A vfork child (CPython's _posixsubprocess resets every handler in
     * one before exec) shares our memory but has a signal table of its
     * own: it must change only its own, never the slots of this image. */
    if (getpid() != pp_state.pid)
        return real_sigaction(sig, act, oact);

    struct sigaction prev = slots[sig].app;
    if (act) {
        if (c == CHAIN_GUARD || is_default(act)) {
            /* The slot first: a signal arriving meanwhile must already
             * meet what the application asked for. */
            slots[sig].app = *act;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            if (!sigchain_owns(sig) && install_ours(sig) != 0) {
                slots[sig].app = prev;
                return real_sigaction(sig, act, oact);
            }
        } else {
            int r = real_sigaction(sig, act, NULL);
            if (r != 0)
                return r;
            slots[sig].ours = 0;
            slots[sig].app = *act;
        }
    }
    if (oact)
        *oact = prev;
    return 0;
}

/* glibc's signal() has BSD semantics: handler stays, SA_RESTART, the signal
 * blocked during its handler.  It calls sigaction internally without the
 * PLT, hence these wrappers. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
    struct sigaction a, o;
    memset(&a, 0, sizeof a);
    a.sa_handler = h;
    sigemptyset(&a.sa_mask);
    if (!(flags & SA_NODEFER) && sig > 0 && sig < NSIG)
        sigaddset(&a.sa_mask, sig);
    a.sa_flags = flags;
    if (sigaction(sig, &a, &o) != 0)
        return SIG_ERR;
    return o.sa_handler;
}

/* Signals we do not chain, and every signal while the chain is off, go to
 * glibc's own function, which also honours siginterrupt(). */
static int chained(int sig)
{
    return chain_on && sig > 0 && sig < NSIG && class_of(sig) != CHAIN_NONE;
}

/* Signals siginterrupt() asked to interrupt system calls: for chained
 * ones, signal() then leaves SA_RESTART off, as glibc's does. */
static volatile sig_atomic_t interrupting[NSIG];

PP_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
    signal_fn real;
    if (!chained(sig) && (real = NEXT(real_signal_fn, signal_fn, "signal")))
        return real(sig, h);
    return set_handler(sig, h, interrupting[sig] ? 0 : SA_RESTART);
}

/* glibc's siginterrupt() changes the disposition with its internal
 * sigaction, past ours: for chained signals it is done here, on the
 * application's own disposition. */
PP_EXPORT int siginterrupt(int sig, int flag)
{
    if (sig <= 0 || sig >= NSIG) {
        errno = EINVAL;
        return -1;
    }
    /* glibc's own also remembers the choice for its signal() */
    siginterrupt_fn real;
    if (!chained(sig) &&
        (real = NEXT(real_siginterrupt_fn, siginterrupt_fn, "siginterrupt")))
        return real(sig, flag);
    interrupting[sig] = flag != 0;
    struct sigaction a;
    if (sigaction(sig, NULL, &a) != 0)
        return -1;
    if (flag)
        a.sa_flags &= ~SA_RESTART;
    else
        a.sa_flags |= SA_RESTART;
    return sigaction(sig, &a, NULL);
}

sighandler_t bsd_signal(int sig, sighandler_t h);
PP_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
    return signal(sig, h);
}

PP_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
    signal_fn real;
    if (!chained(sig) && (real = NEXT(real_sysv_signal_fn, signal_fn, "sysv_signal")))
        return real(sig, h);
    return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* glibc's sigset() and sigignore() also change the disposition with its
 * internal sigaction, past ours: for a chained signal that left the kernel
 * with the application's handler (the guard lost; a read fault on the
 * sampler thread would have gone to the application) while sigaction()
 * still answered with the old one.  For chained signals they are done here
 * with glibc's semantics (SIG_HOLD blocks; setting a disposition unblocks;
 * SIG_HOLD is returned when the signal was blocked). */
PP_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
    signal_fn real;
    if (!chained(sig) && (real = NEXT(real_sigset_fn, signal_fn, "sigset")))
        return real(sig, disp);
    if (disp == SIG_ERR || sig <= 0 || sig >= NSIG) {
        errno = EINVAL;
        return SIG_ERR;
    }
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, sig);
    struct sigaction a, o;
    if (disp == SIG_HOLD) {
        if (sigprocmask(SIG_BLOCK, &set, &old) != 0)
            return SIG_ERR;
        if (sigismember(&old, sig))
            return SIG_HOLD;
        if (sigaction(sig, NULL, &o) != 0)
            return SIG_ERR;
        return o.sa_handler;
    }
    memset(&a, 0, sizeof a);
    a.sa_handler = disp;
    sigemptyset(&a.sa_mask);
    if (sigaction(sig, &a, &o) != 0)
        return SIG_ERR;
    if (sigprocmask(SIG_UNBLOCK, &set, &old) != 0)
        return SIG_ERR;
    return sigismember(&old, sig) ? SIG_HOLD : o.sa_handler;
}

PP_EXPORT int sigignore(int sig)
{
    sigignore_fn real;
    if (!chained(sig) && (real = NEXT(real_sigignore_fn, sigignore_fn, "sigignore")))
        return real(sig);
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_handler = SIG_IGN;
    sigemptyset(&a.sa_mask);
    return sigaction(sig, &a, NULL);
}
