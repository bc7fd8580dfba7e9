/*
 * zstd_lazy.c — dlopen of libzstd on first need (zstd_lazy.h says why).
 */
#include <dlfcn.h>
#include <stddef.h>

#include "base/log.h"
#include "record/not_profiled.h"
#include "record/zstd_lazy.h"

#ifndef PP_ZSTD_SONAME
#define PP_ZSTD_SONAME "libzstd.so.1"
#endif

struct zstd_lazy_api zstd_lazy;

static const struct {
    const char *name;
    size_t off;
    int optional;
} entry[] = {
    { "ZSTD_createCCtx", offsetof(struct zstd_lazy_api, createCCtx), 0 },
    { "ZSTD_CStreamOutSize", offsetof(struct zstd_lazy_api, CStreamOutSize), 0 },
    { "ZSTD_CCtx_setParameter", offsetof(struct zstd_lazy_api, CCtx_setParameter), 0 },
    { "ZSTD_CCtx_reset", offsetof(struct zstd_lazy_api, CCtx_reset), 0 },
    { "ZSTD_compressStream2", offsetof(struct zstd_lazy_api, compressStream2), 0 },
    { "ZSTD_isError", offsetof(struct zstd_lazy_api, isError), 0 },
    { "ZSTD_getErrorName", offsetof(struct zstd_lazy_api, getErrorName), 0 },
    { "ZSTD_initStaticCCtx", offsetof(struct zstd_lazy_api, initStaticCCtx), 1 },
    { "ZSTD_getCParams", offsetof(struct zstd_lazy_api, getCParams), 1 },
    { "ZSTD_estimateCStreamSize_usingCParams",
      offsetof(struct zstd_lazy_api, estimateCStreamSize_usingCParams), 1 },
};

int zstd_lazy_init(void)
{
    static int state;               /* 0 untried, 1 loaded, -1 failed */
    if (state)
        return state > 0 ? 0 : -1;
    state = -1;
    /* A bare soname: the same search as a DT_NEEDED entry would get.
     * RTLD_LOCAL keeps its symbols out of the application's scope. */
    void *h = dlopen(PP_ZSTD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        pp_not_profiled("cannot load %s (%s)", PP_ZSTD_SONAME, e ? e : "?");
        return -1;
    }
    struct zstd_lazy_api api;
    for (size_t i = 0; i < sizeof entry / sizeof entry[0]; i++) {
        void *fn = dlsym(h, entry[i].name);
        if (!fn && entry[i].optional) {
            *(void **)((char *)&api + entry[i].off) = NULL;
            continue;
        }
        if (!fn) {
            pp_not_profiled("%s has no %s (libzstd >= 1.4.0 is needed)",
                            PP_ZSTD_SONAME, entry[i].name);
            dlclose(h);
            return -1;
        }
        *(void **)((char *)&api + entry[i].off) = fn;
    }
    zstd_lazy = api;
    state = 1;
    return 0;
}
