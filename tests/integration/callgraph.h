/*
 * callgraph.h — checks sampled stacks against a program's own call graph
 * (what tests/py/stackstorm.py prints with "graph"): a stack the program
 * could never have had is named with the rule it breaks.
 *
 * Graph text, one fact a line:
 *     file PATH                        the program's one source file
 *     entry NAME                       a thread's outermost function
 *     func NAME FIRST LAST called|resumed
 *                                      a function, its lines, and whether
 *                                      it runs when called or only when a
 *                                      generator/coroutine is resumed
 *     call CALLER LINE CALLEE          CALLER's line LINE calls CALLEE
 *     resume CALLER LINE CALLEE        CALLER's line LINE resumes CALLEE
 *     ccall CALLER LINE                CALLER's line LINE calls something
 *                                      that is not one of the program's
 *                                      functions (a builtin, a method)
 *     awaits CALLER LINE               coroutine CALLER awaits on line LINE
 *     task FUNC NAME                   an asyncio task named NAME (as the
 *                                      sampler shows it: <task NAME>, or
 *                                      <task>) runs coroutine FUNC
 * <module> is always a function (of any line).  A stack whose outermost
 * frame is pyprof-merge's "<truncated> (~:0)" (deeper than the sampler's
 * cap) is checked from its next frame on, which may be any function; one
 * whose innermost frame is "<GC> (~:0)" (the cyclic GC running on the
 * thread) is checked without it, as if the frame under it were innermost.
 * A C function ("<built-in method ...> (~:0)", "<method '...' of '...'
 * objects> (~:0)") must stand above a line with a ccall fact, and is
 * otherwise passed over.  In a program with tasks, frames of other files
 * may stand above a line that calls (asyncio.run: the event loop) or that
 * awaits (what the await runs); a task ("<task NAME> (~:0)") above such
 * frames or such a line; the frame above a task must be its function, and
 * a program frame above other files' frames a task's function (a task
 * the sampler did not read).
 * A stack made only of
 * frames of "<frozen ...>" files is the interpreter's own start-up
 * (zipimport, importlib called from C) and passes; so does its
 * finalization: a stack with no frame of the program whose outermost
 * frame is threading's _shutdown or a standard library's atexit callback
 * (logging's shutdown, weakref's finalize._exitfunc, multiprocessing's
 * _exit_function).
 */
#ifndef PYPROF_TEST_CALLGRAPH_H
#define PYPROF_TEST_CALLGRAPH_H

#include <stddef.h>

enum cg_verdict {
    CG_OK,
    CG_EMPTY,            /* no frame at all                               */
    CG_BAD_FRAME,        /* not "name (file:line)"                        */
    CG_FOREIGN,          /* a frame of another file or an unknown function */
    CG_LINE_OUTSIDE,     /* a frame on a line its function does not have
                            (the innermost frame may be on line -1)       */
    CG_NOT_ENTRY,        /* the outermost frame is no thread's entry      */
    CG_NOT_CALLED,       /* a caller's line does not call its callee      */
    CG_NOT_RESUMED,      /* a generator/coroutine under a line that does
                            not resume it                                 */
    CG_NOT_C_CALL,       /* a C function above a line that calls none     */
    CG_NOT_TASK,         /* a task where nothing awaits it, or a frame above
                            one that is not the task's function          */
    CG_VERDICTS          /* how many there are                            */
};

struct callgraph;

/* Parses the graph text; NULL with a reason in err on a malformed line. */
struct callgraph *cg_parse(const char *text, char *err, size_t errsize);

/* Checks one stack, frames outermost first as pyprof-merge's collapsed
 * format writes them ("qualname (file:line)").  *at is the index of the
 * offending frame. */
enum cg_verdict cg_check(const struct callgraph *g, const char *const *frames,
                         size_t depth, size_t *at);

const char *cg_verdict_name(enum cg_verdict v);

/* "VERDICT at frame N: f0 > f1 > ..." into buf (cut to cap), so that a
 * failure message names the stack itself: CI keeps a test's message,
 * not always its stderr. */
void cg_describe(enum cg_verdict v, size_t at, const char *const *frames, size_t depth,
                 char *buf, size_t cap);

void cg_free(struct callgraph *g);

#endif
