/*
 * thread_name.h — the name a program gave a thread (threading.Thread's
 * name), read from the interpreter's memory (pyprof(7), "Thread names").
 */
#ifndef PYPROF_THREAD_NAME_H
#define PYPROF_THREAD_NAME_H

#include <stddef.h>
#include <stdint.h>

struct py_layout;

/* str_type: the interpreter's PyUnicode_Type.  Called by pyvm_detect. */
void thread_name_attach(const struct py_layout *l, uintptr_t str_type);

/* Writes the name of the threading.Thread that thread state tstate runs
 * (the self of its Thread._bootstrap_inner frame, the outermost frames
 * of every thread threading started) into out as UTF-8, cut to cap - 1
 * bytes.  Returns its length, or -1 when the thread runs no such frame
 * (the main thread, a thread started otherwise) or it cannot be read.
 * Sampler thread only; reads every frame of the thread once. */
int thread_name_read(uintptr_t tstate, char *out, size_t cap);

#endif
