/*
 * loaded_symbol.h — whether any loaded object could define a symbol,
 * answered from the objects' own GNU hash tables.
 *
 * dlsym of a name that no object defines takes the loader's error path,
 * which formats its message into memory from malloc: in a program that
 * has not called malloc yet (most programs a Python tree execs: sh, true,
 * make, compilers, at the moment the library's constructor runs) that is
 * the allocator's whole start (its random key, two brk calls, the heap's
 * first pages), paid in every exec'd process only to learn that it is
 * not a Python (pyprof(7), "Timing and cost").
 */
#ifndef PYPROF_LOADED_SYMBOL_H
#define PYPROF_LOADED_SYMBOL_H

/* 0 when no loaded object defines name (it has a GNU hash table saying
 * so); 1 when one may: one defines it, or has no GNU hash table to ask.
 * Allocates nothing; reads only the loader's own mappings. */
int loaded_symbol_may_exist(const char *name);

#endif
