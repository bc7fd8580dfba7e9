/*
 * spawn_shell.h — /bin/sh -c cmd with the environment a profiled child
 * needs, the process's own left alone: what system() (exec.c) and popen()
 * (popen.c) both run.
 */
#ifndef PYPROF_SPAWN_SHELL_H
#define PYPROF_SPAWN_SHELL_H

#include <spawn.h>

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

/* glibc's posix_spawn, as the exec hooks resolved it (exec.c). */
void spawn_shell_init(spawn_fn real_posix_spawn);

/* As posix_spawn of "sh -c cmd": 0 or an error number. */
int spawn_shell(pid_t *pid, const char *cmd, const posix_spawn_file_actions_t *fa,
                const posix_spawnattr_t *attr);

#endif
