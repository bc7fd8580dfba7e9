/*
 * thread_name.h — the name a program gave a thread (threading.Thread's
 * name), read from the interpreter's memory (pyprof(7), "Thread names").
 */
#ifndef PYPROF_THREAD_NAME_H
#define PYPROF_THREAD_NAME_H

#include <stddef.h>
#include <stdint.h>

struct py_layout;

/* str_type, module_type: the interpreter's PyUnicode_Type and
 * PyModule_Type.  Called by pyvm_detect. */
void thread_name_attach(const struct py_layout *l, uintptr_t str_type,
                        uintptr_t module_type);

/* Writes the name of the threading.Thread that thread state tstate runs
 * (the self of its Thread._bootstrap_inner frame, the outermost frames
 * of every thread threading started; for the process's main thread,
 * main_thread set, threading's _main_thread, looked up in sys.modules
 * and the module's globals) into out as UTF-8, cut to cap - 1 bytes.
 * Returns its length, or -1 when the thread has no such object (a thread
 * started otherwise, a program that has not imported threading) or it
 * cannot be read.  Sampler thread only; reads every frame of the thread
 * once, or a few hundred entries of two dicts. */
int thread_name_read(uintptr_t tstate, int main_thread, char *out, size_t cap);

#endif
