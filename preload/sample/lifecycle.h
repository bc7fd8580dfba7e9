/*
 * lifecycle.h — the moments where an image's profile must be started,
 * carried over, or finished: fork, exec, exit, fatal signals.  Implemented
 * in hooks_fork.c / hooks_exit.c / sampler.c; called by the exec hooks
 * (hooks_exec.c) and the constructor.
 */
#ifndef PYPROF_LIFECYCLE_H
#define PYPROF_LIFECYCLE_H

/* Starts sampling in this image (opens its file, starts the thread). */
void pp_start(int started_by);

/* Before an exec from this image: if the calling process is the image
 * itself (not a vfork child sharing our memory), stops the sampler and
 * writes the END record (how = exec) so the file is complete.  Returns a
 * token for pp_exec_failed.  Async-signal-safe in the vfork child case
 * (it then only compares getpid() with pp_state.pid and returns). */
int pp_before_exec(void);
/* The exec returned (failed): sampling resumes in the same file. */
void pp_exec_failed(int token);

/* Finishes the file: END record with how/value (enum pp_end_how). Safe to
 * call more than once; the first call wins. */
void pp_finish(int how, int value);

/* Installs atfork handlers and exit/signal handling (hooks_fork.c,
 * hooks_exit.c). */
void pp_fork_init(void);
void pp_exit_init(void);
/* Registers the exit-status handler; called when the first file opens. */
void pp_exit_register(void);

/* Interpreter detection (preload.c): whether it ran with an answer, and
 * running it (again) after libraries were loaded.  hooks_dlopen.c calls
 * the second after a dlopen; pp_dlopen_check() catches up with bare-name
 * loads it let through untouched, from ordinary (non-vfork) code. */
int pp_python_seen(void);
void pp_detect_python(void);
void pp_dlopen_init(void);
void pp_dlopen_check(void);

#endif
