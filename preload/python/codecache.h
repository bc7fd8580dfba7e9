/*
 * codecache.h — code object address -> what the writer needs to name a
 * frame.  Entries are validated on every hit against the object's current
 * type, names and line table pointers, so an address reused by another
 * code object gets a new entry, never the old name.
 */
#ifndef PYPROF_CODECACHE_H
#define PYPROF_CODECACHE_H

#include <stdint.h>

#include "python/callsite.h"

struct call_depths;

struct code_info {
    /* Owned by the writer: the CODE record id in the current file, valid
     * only while file_gen equals the writer's generation (a fork child or
     * a resumed file starts a new generation). */
    uint32_t    file_id;
    uint32_t    file_gen;
    const char *qualname;     /* UTF-8, NUL-terminated, owned by the cache      */
    const char *name;         /* bare co_name                                   */
    const char *filename;
    int32_t     firstlineno;
    /* 0 for code.  A pseudo-frame that marks where a thread entered a
     * subinterpreter (sampler.c) has 1 + that interpreter's id. */
    uint64_t    boundary;
    /* private to codecache.c/linetable.c */
    uintptr_t   addr;
    uintptr_t   key[5];
    const uint8_t *linetable;
    uint32_t    linetable_len;
    int32_t     firsttraceable;  /* 3.11+: earlier instructions are setup */
    struct callsite_map calls;   /* 3.11, 3.12: callsite.h               */
    struct call_depths *depths;  /* 3.14+: stackdepth.h, built when a
                                    frame is first seen on a call       */
    uint8_t     depths_tried;
    int32_t     last_lasti;
    int32_t     last_line;
    uint32_t    pinned_tick;     /* in use by the sample being taken        */
    uint8_t     lru;
};

struct py_layout;

/* The addresses of PyCode_Type, PyUnicode_Type and PyBytes_Type: an object
 * whose type is not the one expected is not read.  Set by pyvm_detect
 * before the first codecache_get. */
void codecache_types(uintptr_t code_type, uintptr_t str_type,
                     uintptr_t bytes_type);

/* Returns the entry for the code object at addr, reading and caching it
 * on first sight, or NULL when addr is not a readable code object. */
struct code_info *codecache_get(const struct py_layout *l, uintptr_t addr);

/* The cached entry for addr without reading memory, or NULL.  Only for a
 * code object known to be alive and unchanged since it was last resolved
 * (it belongs to a frame that has not changed). */
struct code_info *codecache_peek(uintptr_t addr);

/* Changes whenever an entry is dropped: while it has not changed, every
 * pointer the cache handed out still points to the same code object. */
uint32_t codecache_evictions(void);

/* Marks the start of a sample: entries used from now on are not evicted
 * until the next call, so pointers handed out stay valid for one sample. */
void codecache_new_tick(void);

/* Line for instruction offset lasti (code units, -1 = not started). */
int32_t codecache_line(const struct py_layout *l, const struct code_info *c,
                       int32_t lasti);

void codecache_reset(void);

#endif
