/*
 * hooks.h — the process-tree hooks' start-up, for the constructor: each
 * resolves the glibc functions it wraps now, so that no dlsym runs later
 * where it must not (a vfork child, a signal handler, an atfork handler).
 */
#ifndef PYPROF_HOOKS_H
#define PYPROF_HOOKS_H

/* exec family, posix_spawn, system (exec.c), popen (popen.c), fork
 * (fork.c): every process. */
void hooks_exec_init(void);
void hooks_popen_init(void);
void hooks_fork_init(void);

/* dlopen (dlopen.c): every process.  detect() looks for an interpreter
 * again; it is called after a library was loaded while none has been seen
 * (pp_profile_seen). */
void hooks_dlopen_init(void (*detect)(void));

/* Catches up with bare-name dlopens let through untouched, from ordinary
 * (non-vfork) code: the fork wrapper and pthread_key_create. */
void hooks_dlopen_check(void);

/* _exit, _Exit, exit and the destructor (exit.c): only a process that
 * will be profiled, before its sampler starts. */
void hooks_exit_init(void);

/* PYPROF_ONLY (only_match.c): whether the command line argv (joined with
 * spaces) matches the pattern. */
int only_match(char *const *argv);

#endif
