/*
 * env_inject.c — building a child's environment on the stack.
 *
 * A child keeps every entry the caller gave it.  LD_PRELOAD gets our
 * library in front (the caller's own entries, e.g. jemalloc, stay); the
 * PYPROF_* settings the tree was started with are added where missing, so
 * `env -i`, `subprocess.run(env={})` and execve(path, argv, NULL) still
 * give a profiled child; PYPROF_PARENT is set to name the image the child
 * descends from (base/identity.h).  With PYPROF_FOLLOW=0 our library is taken out
 * of LD_PRELOAD instead and nothing is added.
 */
#include <string.h>
#include <unistd.h>

#include "base/child_writes.h"
#include "base/config.h"
#include "hooks/env_inject.h"
#include "pyprof/control.h"
#include "pyprof/format.h"
#include "pyprof/unprofiled.h"
#include "base/identity.h"
#include "sample/lifecycle.h"

extern char **environ;

/* "NAME=value" strings captured at start-up, in static storage. */
static const char *const setting_names[] = {
    "PYPROF_HZ", "PYPROF_FLUSH_MS", "PYPROF_FOLLOW", "PYPROF_ONLY", "PYPROF_LOG",
    "PYPROF_LOG_FILE", PP_ENV_RUN_SOCKET, PP_ENV_CONTROL,
};
#define NSETTINGS (sizeof setting_names / sizeof *setting_names)
#define SETTING_MAX 1100            /* longest entry kept, its 0 included */
_Static_assert(NSETTINGS * SETTING_MAX <= 65535, "setting_at is 16 bits");

/* The entries set, one after the other: a process under pyprof-run, every
 * exec of a build's tree, writes one page of them, not one page each. */
static char settings[NSETTINGS * SETTING_MAX];
PP_START_WRITES static unsigned short setting_at[NSETTINGS];
PP_START_WRITES static unsigned captured;   /* bit i: setting_at[i] is set */

void env_inject_init(void)
{
    size_t used = 0;
    captured = 0;
    for (size_t i = 0; i < NSETTINGS; i++) {
        size_t n = strlen(setting_names[i]);
        for (char **e = environ; e && *e; e++) {
            size_t len;
            if (!strncmp(*e, setting_names[i], n) && (*e)[n] == '=' &&
                (len = strlen(*e) + 1) <= SETTING_MAX) {
                memcpy(settings + used, *e, len);
                setting_at[i] = (unsigned short)used;
                used += len;
                captured |= 1u << i;
                break;
            }
        }
    }
}

static int has_prefix(const char *s, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(s, name, n) && s[n] == '=';
}

static const char *base_name(const char *p, size_t n, size_t *bn)
{
    const char *b = p;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '/')
            b = p + i + 1;
    *bn = n - (size_t)(b - p);
    return b;
}

/* Whether the token [p, p+n) of LD_PRELOAD names our library. */
static int is_ours(const char *p, size_t n)
{
    const char *ours = pp_state.preload_path;
    size_t on = strlen(ours), bn, obn;
    if (n == on && !memcmp(p, ours, n))
        return 1;
    const char *b = base_name(p, n, &bn), *ob = base_name(ours, on, &obn);
    return bn && bn == obn && !memcmp(b, ob, bn);
}

/* Writes LD_PRELOAD=... into dst (cap bytes): ours first unless `strip`,
 * then the caller's other entries.  Returns NULL when it does not fit or
 * when, stripped, nothing is left. */
static char *preload_entry(const char *old, int strip, char *dst, size_t cap)
{
    size_t n = 0;
    const char *prefix = "LD_PRELOAD=";
    size_t pl = strlen(prefix), ol = strlen(pp_state.preload_path);
    if (pl + ol + 2 > cap)
        return NULL;
    memcpy(dst, prefix, pl);
    n = pl;
    if (!strip) {
        memcpy(dst + n, pp_state.preload_path, ol);
        n += ol;
    }
    for (const char *p = old; p && *p; ) {
        size_t t = strcspn(p, ": ");
        if (t && !is_ours(p, t)) {
            if (n + t + 2 > cap)
                return NULL;
            if (n > pl)
                dst[n++] = ':';
            memcpy(dst + n, p, t);
            n += t;
        }
        p += t;
        while (*p == ':' || *p == ' ')
            p++;
    }
    dst[n] = 0;
    return n > pl ? dst : NULL;
}

/* "PYPROF_PARENT=..." for a child started now, or NULL for none. */
static char *parent_entry(int how, char *dst)
{
    const char *name = PP_ENV_PARENT "=";
    size_t nl = strlen(name);
    memcpy(dst, name, nl);
    if (pp_profile_nameable()) {
        /* exec by the image itself replaces it; anything else (spawn, or an
         * exec in a vfork child sharing our memory) starts a new process */
        int h = how == PP_START_EXEC && getpid() == pp_state.pid ? PP_START_EXEC
                                                                 : PP_START_SPAWN;
        pp_format_parent(dst + nl, pp_state.uid, h);
        return dst;
    }
    if (!pp_state.inherited_parent[0])
        return NULL;
    strcpy(dst + nl, pp_state.inherited_parent);
    return dst;
}

size_t env_inject_slots(char *const *envp)
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n + NSETTINGS + 4;
}

char *const *env_inject_patch(char *const *envp, int how, char **slots,
                              size_t cap, char *strings)
{
    if (env_inject_slots(envp) > cap || cap > PP_ENV_MAX_SLOTS)
        return envp;
    int follow = pp_config.follow;
    const char *old_preload = NULL;
    size_t n = 0;
    int have[NSETTINGS] = { 0 }, have_out = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (has_prefix(e, "LD_PRELOAD")) {
            old_preload = e + strlen("LD_PRELOAD=");
            continue;
        }
        if (has_prefix(e, PP_ENV_PARENT))
            continue;
        for (size_t k = 0; k < NSETTINGS; k++)
            if (has_prefix(e, setting_names[k]))
                have[k] = 1;
        if (has_prefix(e, "PYPROF_OUT"))
            have_out = 1;
        slots[n++] = (char *)e;
    }
    char *preload = preload_entry(old_preload, !follow, strings, PATH_MAX_ENV);
    if (preload)
        slots[n++] = preload;
    else if (old_preload && follow)
        return envp;                   /* would not fit: leave it alone */
    if (follow) {
        char *parent = parent_entry(how, strings + PATH_MAX_ENV);
        if (parent)
            slots[n++] = parent;
        for (size_t k = 0; k < NSETTINGS; k++)
            if (!have[k] && (captured & (1u << k)))
                slots[n++] = settings + setting_at[k];
        if (!have_out && pp_out_dir()[0])
            slots[n++] = pp_config.out_entry;
    }
    slots[n] = NULL;
    return slots;
}
