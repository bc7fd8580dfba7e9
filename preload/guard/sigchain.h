/*
 * sigchain.h — our SIGSEGV/SIGBUS handler and the terminating signals'
 * handlers stay in front of the application's, which are kept and called
 * exactly as the kernel would call them (sigchain.c says how).
 */
#ifndef PYPROF_SIGCHAIN_H
#define PYPROF_SIGCHAIN_H

/* Resolves glibc's sigaction and signal functions; called by the
 * constructor of every process, never lazily in a handler. */
void sigchain_init(void);

/* What the chain asks of the layers above it.  before_death(sig): a
 * signal whose disposition is the default action is about to end the
 * process (the profile is finished first).  on_sampler_thread(): whether
 * the calling thread is the sampler thread (a fault signal sent to it
 * with kill() belongs to the application's threads).  Set once, before
 * sigchain_install; NULL = nothing to do or ask. */
void sigchain_callbacks(void (*before_death)(int sig),
                        int (*on_sampler_thread)(void));

/* fn() runs in the handler, before a fault that is not a guarded read is
 * handed back to the application's handler (which then becomes the
 * kernel disposition): the guard is no longer in front.  Must be
 * async-signal-safe. */
void sigchain_on_handback(void (*fn)(void));

/* Sets up the interposition state from the current kernel dispositions
 * and installs our handlers, guard being what a SIGSEGV/SIGBUS is given
 * to first; called by safe_read_init.  0 or -1. */
int sigchain_install(void (*guard)(int, void *, void *));

/* Whether the kernel disposition of sig is still our handler. */
int sigchain_owns(int sig);

/* Calls the application's disposition for sig as the kernel would have. */
void sigchain_forward(int sig, void *info, void *uctx);

#endif
