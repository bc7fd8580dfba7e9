/*
 * uncounted.h — the sampler thread is not one of the threads that keep
 * the process alive.
 *
 * glibc counts its threads, and the last one to end without exit()
 * (return from a thread function, pthread_exit, main's pthread_exit) calls
 * exit(0) itself: atexit handlers run, stdio is flushed, the status is 0.
 * Counted, the sampler would be that last thread, which never ends, and
 * the process would live for ever.  So the thread that starts the sampler
 * takes it out of the count, and the sampler puts itself back only when it
 * ends while the process goes on (exec failed, no timer).
 */
#ifndef PYPROF_UNCOUNTED_H
#define PYPROF_UNCOUNTED_H

/* Called by the thread that creates the sampler, before pthread_create:
 * a sampler that ends at once waits in uncounted_recount until
 * uncounted_sampler (or uncounted_cancel, if pthread_create failed) has
 * run, so that it never puts back what was not yet taken out. */
void uncounted_prepare(void);
void uncounted_cancel(void);

/* Called by the thread that created the sampler, right after
 * pthread_create succeeded.  Returns 0, or -1 where glibc's count is not
 * found (the sampler then keeps a process whose threads all ended without
 * exit() alive: pyprof(7)). */
int uncounted_sampler(void);

/* Called by the sampler thread just before it returns.  Returns 1 if it
 * may return; 0 if every other thread has ended, in which case the last
 * of them is in exit() (glibc's, as above) and the sampler must not
 * return, since its own end would count as a last thread again. */
int uncounted_recount(void);

/* Fork child: only the thread that forked is left; none is out. */
void uncounted_after_fork(void);

#endif
