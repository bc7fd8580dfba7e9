/* spawn_shell.c — sh -c for system() and popen() (spawn_shell.h). */
#include <spawn.h>

#include "base/child_writes.h"
#include "hooks/env_inject.h"
#include "hooks/spawn_shell.h"
#include "pyprof/format.h"

extern char **environ;

PP_START_WRITES static spawn_fn real_posix_spawn;

void spawn_shell_init(spawn_fn real) { real_posix_spawn = real; }

int spawn_shell(pid_t *pid, const char *cmd, const posix_spawn_file_actions_t *fa,
                const posix_spawnattr_t *attr)
{
    char *argv[] = { "sh", "-c", (char *)cmd, NULL };
    PATCHED_ENV(env, environ, PP_START_SPAWN);
    return real_posix_spawn(pid, "/bin/sh", fa, attr, argv, env);
}
