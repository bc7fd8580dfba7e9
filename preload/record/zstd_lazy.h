/*
 * zstd_lazy.h — libzstd, loaded only by processes that will write a
 * profile.  The library is preloaded into every process of the tree (sh,
 * make, cc...); linking libzstd would make each of them map and relocate
 * it at exec for nothing (about 65 us per exec on the development VM, a
 * third of the preload's whole start-up cost).
 */
#ifndef PYPROF_ZSTD_LAZY_H
#define PYPROF_ZSTD_LAZY_H

/* For the optional entry points below (ZSTD_initStaticCCtx and the
 * sizes it needs): declared by zstd.h only with this. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

/* The compression entry points the writer uses, typed from zstd.h. */
struct zstd_lazy_api {
    __typeof__(ZSTD_createCCtx) *createCCtx;
    __typeof__(ZSTD_CStreamOutSize) *CStreamOutSize;
    __typeof__(ZSTD_CCtx_setParameter) *CCtx_setParameter;
    __typeof__(ZSTD_CCtx_reset) *CCtx_reset;
    __typeof__(ZSTD_compressStream2) *compressStream2;
    __typeof__(ZSTD_isError) *isError;
    __typeof__(ZSTD_getErrorName) *getErrorName;
    /* Optional (NULL where libzstd lacks them): a compressor placed in
     * memory of ours (writer.c says why). */
    __typeof__(ZSTD_initStaticCCtx) *initStaticCCtx;
    __typeof__(ZSTD_getCParams) *getCParams;
    __typeof__(ZSTD_estimateCStreamSize_usingCParams) *estimateCStreamSize_usingCParams;
};

extern struct zstd_lazy_api zstd_lazy;

/* Loads libzstd (PP_ZSTD_SONAME, found by configure) and fills zstd_lazy.
 * Idempotent; first called by the constructor of an interpreter process,
 * before any other thread of ours exists.  0, or -1 after one warning. */
int zstd_lazy_init(void);

#endif
