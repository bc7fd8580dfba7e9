/*
 * env_inject.h — the environment a child gets: the caller's, plus what
 * keeps it profiled (LD_PRELOAD with our library, the PYPROF_* settings,
 * PYPROF_PARENT naming the image that started it).
 *
 * Runs inside vfork children and exec hooks: stack memory only, no heap,
 * no locks, no stdio.  Callers provide the arrays:
 *
 *     size_t cap = pp_env_slots(envp);
 *     char *slots[cap <= PP_ENV_MAX_SLOTS ? cap : 1];
 *     char strings[PP_ENV_STRBUF];
 *     char *const *env = pp_env_patch(envp, how, slots, cap, strings);
 */
#ifndef PYPROF_ENV_INJECT_H
#define PYPROF_ENV_INJECT_H

#include <stddef.h>

#define PP_ENV_MAX_SLOTS 16384     /* larger environments pass unchanged */
#define PP_ENV_STRBUF    (PATH_MAX_ENV + 256)
#define PATH_MAX_ENV     (3 * 4096 + 64)

/* Reads what children must inherit; called once by the constructor. */
void pp_env_capture(void);

/* Entries needed for envp (NULL = empty) with ours added, NULL included. */
size_t pp_env_slots(char *const *envp);

/* A patched copy of envp in slots (cap entries) and strings
 * (PP_ENV_STRBUF bytes); how is PP_START_EXEC for the exec family and
 * PP_START_SPAWN for posix_spawn/system/popen.  Returns envp itself when
 * it cannot be patched safely: too many entries for cap or
 * PP_ENV_MAX_SLOTS, or an LD_PRELOAD with no room for ours. */
char *const *pp_env_patch(char *const *envp, int how, char **slots, size_t cap,
                          char *strings);

#endif
