/*
 * test_env_inject.c — the environment an exec/spawn hook gives a child
 * (pyprof(7), Following children): every caller's entry kept, our library
 * first in LD_PRELOAD with the caller's own entries after it and copies of
 * ours dropped, the tree's PYPROF_* settings added where missing (also for
 * env={} and a NULL envp), PYPROF_PARENT naming the image that started the
 * child, PYPROF_FOLLOW=0 taking ours out, and environments too large to
 * patch on the stack passed unchanged.
 *
 * env_inject.c reads pp_state (base/identity.c) for the library's path,
 * this image's id and the parent it inherited, and pp_profile
 * (sample/profile.c) for whether this image is profiled.  Each test runs
 * in its own process, so setenv(), pp_state and pp_profile stay in it.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "hooks/env_inject.h"
#include "pyprof/format.h"
#include "base/identity.h"
#include "sample/lifecycle.h"

#define OURS "/opt/pyprof/lib/libpyprof.so"

static void setup(void)
{
    static const char *const vars[] = {
        "PYPROF_OUT", "PYPROF_HZ", "PYPROF_FOLLOW", "PYPROF_FLUSH_MS",
        "PYPROF_ONLY", "PYPROF_LOG", "PYPROF_LOG_FILE", "PYPROF_RUN_SOCKET",
        "PYPROF_PARENT",
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    memset(&pp_config, 0, sizeof pp_config);
    char *path = pp_state.preload_path;     /* the library's buffer */
    memset(&pp_state, 0, sizeof pp_state);
    pp_state.preload_path = path;
    strcpy(pp_state.preload_path, OURS);
    memcpy(pp_config.out_entry, PP_OUT_ENTRY_PREFIX, PP_OUT_ENTRY_PREFIX_LEN);
    strcpy(pp_out_dir(), "/srv/prof");
    pp_config.follow = 1;
}

/* The tree's settings as the constructor saw them. */
static void capture(const char *hz, const char *log)
{
    if (hz)
        setenv("PYPROF_HZ", hz, 1);
    if (log)
        setenv("PYPROF_LOG", log, 1);
    env_inject_init();
}

static char *slots[64];
static char strings[PP_ENV_STRBUF];

static char *const *patch(char *const *envp, int how)
{
    size_t cap = env_inject_slots(envp);
    cr_assert_leq(cap, sizeof slots / sizeof *slots);
    return env_inject_patch(envp, how, slots, cap, strings);
}

static size_t count(char *const *env)
{
    size_t n = 0;
    while (env[n])
        n++;
    return n;
}

/* How many entries of env are NAME=...; the last one's value in *value. */
static int entries(char *const *env, const char *name, const char **value)
{
    size_t nl = strlen(name);
    int n = 0;
    if (value)
        *value = NULL;
    for (size_t i = 0; env[i]; i++)
        if (!strncmp(env[i], name, nl) && env[i][nl] == '=') {
            n++;
            if (value)
                *value = env[i] + nl + 1;
        }
    return n;
}

static void expect_one(char *const *env, const char *name, const char *want)
{
    const char *v;
    cr_assert_eq(entries(env, name, &v), 1, "%s entries", name);
    cr_assert_str_eq(v, want, "%s", name);
}

Test(env_inject, ours_first_and_the_callers_preloads_kept, .init = setup)
{
    capture(NULL, NULL);
    char *envp[] = { "HOME=/home/u", "LD_PRELOAD=/usr/lib/libjemalloc.so.2",
                     "LANG=C.UTF-8", NULL };
    char *const *env = patch(envp, PP_START_SPAWN);
    cr_assert_neq(env, envp);
    expect_one(env, "HOME", "/home/u");
    expect_one(env, "LANG", "C.UTF-8");
    expect_one(env, "LD_PRELOAD", OURS ":/usr/lib/libjemalloc.so.2");
    expect_one(env, "PYPROF_OUT", "/srv/prof");
    /* nothing else: no settings were captured, no parent is known */
    cr_assert_eq(count(env), 4);
}

/* Ours under another path or only by name, and space separators: one copy
 * of ours, first, and the rest joined with ':' in their order. */
Test(env_inject, copies_of_ours_are_dropped, .init = setup)
{
    capture(NULL, NULL);
    char *envp[] = {
        "LD_PRELOAD=/old/build/.libs/libpyprof.so:liba.so " OURS "  libb.so:libpyprof.so",
        NULL };
    char *const *env = patch(envp, PP_START_EXEC);
    expect_one(env, "LD_PRELOAD", OURS ":liba.so:libb.so");
}

Test(env_inject, settings_added_where_missing_callers_kept, .init = setup)
{
    capture("500", "1");
    char *envp[] = { "PYPROF_HZ=50", "PYPROF_OUT=/elsewhere", "X=1", NULL };
    char *const *env = patch(envp, PP_START_SPAWN);
    expect_one(env, "PYPROF_HZ", "50");
    expect_one(env, "PYPROF_OUT", "/elsewhere");
    expect_one(env, "PYPROF_LOG", "1");
    expect_one(env, "X", "1");
    expect_one(env, "LD_PRELOAD", OURS);
    cr_assert_eq(entries(env, "PYPROF_FLUSH_MS", NULL), 0);
    cr_assert_eq(count(env), 5);
}

/* env={} and execve(path, argv, NULL) still give a profiled child. */
Test(env_inject, empty_and_null_environments_get_ours, .init = setup)
{
    capture("500", NULL);
    char *empty[] = { NULL };
    char *const *tests[] = { empty, NULL };
    for (size_t i = 0; i < 2; i++) {
        char *const *env = patch(tests[i], PP_START_EXEC);
        cr_assert_not_null(env);
        expect_one(env, "LD_PRELOAD", OURS);
        expect_one(env, "PYPROF_HZ", "500");
        expect_one(env, "PYPROF_OUT", "/srv/prof");
        cr_assert_eq(count(env), 3, "envp %s", i ? "NULL" : "{}");
    }
}

/* PYPROF_FOLLOW=0: ours out of LD_PRELOAD (the entry gone when nothing
 * else is left), no settings and no parent added, the caller's PYPROF_*
 * kept. */
Test(env_inject, follow_off_takes_ours_out, .init = setup)
{
    capture("500", NULL);
    pp_config.follow = 0;
    atomic_store(&pp_profile.has_file, 1);
    pp_state.uid = 0x42;
    char *envp[] = { "LD_PRELOAD=" OURS ":/usr/lib/libjemalloc.so.2", "PYPROF_LOG=2",
                     "PYPROF_PARENT=0000000000000001:3", NULL };
    char *const *env = patch(envp, PP_START_SPAWN);
    expect_one(env, "LD_PRELOAD", "/usr/lib/libjemalloc.so.2");
    expect_one(env, "PYPROF_LOG", "2");
    cr_assert_eq(count(env), 2);

    char *only_ours[] = { "LD_PRELOAD=" OURS, "A=b", NULL };
    env = patch(only_ours, PP_START_SPAWN);
    expect_one(env, "A", "b");
    cr_assert_eq(count(env), 1);
}

Test(env_inject, too_large_environments_pass_unchanged, .init = setup)
{
    capture("500", NULL);
    size_t n = PP_ENV_MAX_SLOTS;
    char **big = calloc(n + 1, sizeof *big);
    cr_assert_not_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = "K=v";
    size_t cap = env_inject_slots(big);
    cr_assert_gt(cap, PP_ENV_MAX_SLOTS);
    char **many = calloc(cap, sizeof *many);
    cr_assert_not_null(many);
    cr_assert_eq(env_inject_patch(big, PP_START_SPAWN, many, cap, strings), big);
    /* fewer slots than the environment needs: unchanged too */
    char *envp[] = { "A=1", NULL };
    cr_assert_eq(env_inject_patch(envp, PP_START_SPAWN, slots, 2, strings), envp);
    free(many);
    free(big);

    /* an LD_PRELOAD that would not fit with ours added */
    char *line = malloc(PATH_MAX_ENV + 16);
    cr_assert_not_null(line);
    strcpy(line, "LD_PRELOAD=");
    memset(line + 11, 'x', PATH_MAX_ENV);
    line[11 + PATH_MAX_ENV] = 0;
    char *long_preload[] = { line, NULL };
    cr_assert_eq(patch(long_preload, PP_START_SPAWN), long_preload);
    free(line);
}

/* A profiled image names itself: an exec by the image is exec, anything
 * else (spawn, or an exec from a vfork child: another pid) is spawn.  The
 * caller's own PYPROF_PARENT never survives. */
Test(env_inject, parent_names_this_image, .init = setup)
{
    capture(NULL, NULL);
    atomic_store(&pp_profile.has_file, 1);
    atomic_store(&pp_profile.phase, PP_ENDED);
    pp_state.pid = getpid();
    pp_state.uid = 0x0123456789abcdefULL;
    char *envp[] = { "PYPROF_PARENT=ffffffffffffffff:1", NULL };
    expect_one(patch(envp, PP_START_EXEC), "PYPROF_PARENT", "0123456789abcdef:2");
    expect_one(patch(envp, PP_START_SPAWN), "PYPROF_PARENT", "0123456789abcdef:3");
    pp_state.pid = getpid() + 1;
    expect_one(patch(envp, PP_START_EXEC), "PYPROF_PARENT", "0123456789abcdef:3");
    /* sampling but its file not written yet: already named */
    atomic_store(&pp_profile.has_file, 0);
    atomic_store(&pp_profile.phase, PP_SAMPLING);
    pp_state.pid = getpid();
    expect_one(patch(envp, PP_START_EXEC), "PYPROF_PARENT", "0123456789abcdef:2");
}

/* A process that is not a profiled image (sh, env, make) passes on the
 * parent it received, or none. */
Test(env_inject, parent_passed_on_by_unprofiled_processes, .init = setup)
{
    capture(NULL, NULL);
    char *envp[] = { "PYPROF_PARENT=ffffffffffffffff:1", "A=1", NULL };
    strcpy(pp_state.inherited_parent, "00000000000000ab:3");
    expect_one(patch(envp, PP_START_EXEC), "PYPROF_PARENT", "00000000000000ab:3");
    pp_state.inherited_parent[0] = 0;
    char *const *env = patch(envp, PP_START_EXEC);
    cr_assert_eq(entries(env, "PYPROF_PARENT", NULL), 0);
    expect_one(env, "A", "1");
}
