/*
 * env_inject.h — the environment a child gets: the caller's, plus what
 * keeps it profiled (LD_PRELOAD with our library, the PYPROF_* settings,
 * PYPROF_PARENT naming the image that started it).
 *
 * Runs inside vfork children and exec hooks: stack memory only, no heap,
 * no locks, no stdio.  Callers provide the arrays:
 *
 * PATCHED_ENV below.
 */
#ifndef PYPROF_ENV_INJECT_H
#define PYPROF_ENV_INJECT_H

#include <stddef.h>

#define PP_ENV_MAX_SLOTS 16384     /* larger environments pass unchanged */
#define PP_ENV_STRBUF    (PATH_MAX_ENV + 256)
#define PATH_MAX_ENV     (3 * 4096 + 64)

/* Reads what children must inherit; called once by the constructor. */
void env_inject_init(void);

/* Entries needed for envp (NULL = empty) with ours added, NULL included. */
size_t env_inject_slots(char *const *envp);

/* A patched copy of envp in slots (cap entries) and strings
 * (PP_ENV_STRBUF bytes); how is PP_START_EXEC for the exec family and
 * PP_START_SPAWN for posix_spawn/system/popen.  Returns envp itself when
 * it cannot be patched safely: too many entries for cap or
 * PP_ENV_MAX_SLOTS, or an LD_PRELOAD with no room for ours. */
char *const *env_inject_patch(char *const *envp, int how, char **slots,
                              size_t cap, char *strings);

/* Declares a patched copy of envp named `var` in the caller's frame. */
#define PATCHED_ENV(var, envp, how)                                          \
    size_t var##_cap = env_inject_slots(envp);                               \
    char *var##_slots[var##_cap <= PP_ENV_MAX_SLOTS ? var##_cap : 1];        \
    char var##_strings[PP_ENV_STRBUF];                                       \
    char *const *var = env_inject_patch(envp, how, var##_slots, var##_cap,   \
                                        var##_strings)

#endif
