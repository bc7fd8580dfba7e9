/*
 * pyprof/c_call.h — how a C function's pseudo-frame is told from a Python
 * frame (pyprof(7), "C calls"; pyprof(5), CODE): its file is "~", line 0,
 * and its name has one of the two forms cProfile gives (preload's
 * python/ccall.c writes them).  Read by the sampler (a thread standing on
 * a call into C), by pyprof-merge (--hide-c-calls) and by the tests.
 */
#ifndef PYPROF_C_CALL_H
#define PYPROF_C_CALL_H

#include <string.h>

#define PP_C_CALL_FILE "~"
#define PP_C_CALL_BUILTIN "<built-in method "
#define PP_C_CALL_METHOD "<method '"

/* Whether a function of that name in that file is a C function's
 * pseudo-frame. */
static inline int pp_is_c_call(const char *filename, const char *name)
{
    return filename && name && !strcmp(filename, PP_C_CALL_FILE) &&
           (!strncmp(name, PP_C_CALL_BUILTIN, sizeof PP_C_CALL_BUILTIN - 1) ||
            !strncmp(name, PP_C_CALL_METHOD, sizeof PP_C_CALL_METHOD - 1));
}

#endif
