/*
 * callgraph.c — the stack checker of callgraph.h: a few small tables
 * searched linearly (graphs of test programs have tens of facts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "pyprof/c_call.h"

#define NAME_MAX_LEN 128

struct cg_func {
    char name[NAME_MAX_LEN];
    long first, last;
    int resumed;
};

struct cg_edge {
    char caller[NAME_MAX_LEN], callee[NAME_MAX_LEN];
    long line;
    int resume;           /* 1: resume; 2: ccall, 3: awaits (callee empty) */
};

struct cg_task { char func[NAME_MAX_LEN], name[NAME_MAX_LEN]; };

struct callgraph {
    char file[1024];
    struct cg_func *funcs;
    size_t nfuncs;
    struct cg_edge *edges;
    size_t nedges;
    char (*entries)[NAME_MAX_LEN];
    size_t nentries;
    struct cg_task *tasks;
    size_t ntasks;
};

static void *grow(void *p, size_t n, size_t size)
{
    /* Powers of two: grow when n reaches one. */
    if (n && (n & (n - 1)))
        return p;
    void *q = realloc(p, (n ? n * 2 : 8) * size);
    if (!q)
        abort();
    return q;
}

static int parse_line(struct callgraph *g, const char *line)
{
    char a[NAME_MAX_LEN], b[NAME_MAX_LEN], kind[16];
    long x, y;
    if (sscanf(line, "file %1023s", g->file) == 1)
        return 0;
    if (sscanf(line, "entry %127s", a) == 1) {
        g->entries = grow(g->entries, g->nentries, sizeof *g->entries);
        memcpy(g->entries[g->nentries++], a, sizeof a);
        return 0;
    }
    if (sscanf(line, "func %127s %ld %ld %15s", a, &x, &y, kind) == 4 &&
        (!strcmp(kind, "called") || !strcmp(kind, "resumed"))) {
        g->funcs = grow(g->funcs, g->nfuncs, sizeof *g->funcs);
        struct cg_func *f = &g->funcs[g->nfuncs++];
        memcpy(f->name, a, sizeof a);
        f->first = x;
        f->last = y;
        f->resumed = kind[0] == 'r';
        return 0;
    }
    int ccall = sscanf(line, "ccall %127s %ld", a, &x) == 2;
    if (ccall || sscanf(line, "awaits %127s %ld", a, &x) == 2) {
        g->edges = grow(g->edges, g->nedges, sizeof *g->edges);
        struct cg_edge *e = &g->edges[g->nedges++];
        memcpy(e->caller, a, sizeof a);
        e->callee[0] = 0;
        e->line = x;
        e->resume = ccall ? 2 : 3;
        return 0;
    }
    if (sscanf(line, "task %127s %127[^\n]", a, b) == 2) {
        g->tasks = grow(g->tasks, g->ntasks, sizeof *g->tasks);
        memcpy(g->tasks[g->ntasks].func, a, sizeof a);
        memcpy(g->tasks[g->ntasks++].name, b, sizeof b);
        return 0;
    }
    int resume = !strncmp(line, "resume ", 7);
    if ((resume || !strncmp(line, "call ", 5)) &&
        sscanf(line + (resume ? 7 : 5), "%127s %ld %127s", a, &x, b) == 3) {
        g->edges = grow(g->edges, g->nedges, sizeof *g->edges);
        struct cg_edge *e = &g->edges[g->nedges++];
        memcpy(e->caller, a, sizeof a);
        memcpy(e->callee, b, sizeof b);
        e->line = x;
        e->resume = resume;
        return 0;
    }
    return -1;
}

struct callgraph *cg_parse(const char *text, char *err, size_t errsize)
{
    struct callgraph *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    long no = 0;
    for (const char *p = text; *p; ) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        no++;
        if (len >= sizeof line) {
            snprintf(err, errsize, "line %ld: too long", no);
            cg_free(g);
            return NULL;
        }
        memcpy(line, p, len);
        line[len] = 0;
        if (len && parse_line(g, line) != 0) {
            snprintf(err, errsize, "line %ld: cannot parse \"%s\"", no, line);
            cg_free(g);
            return NULL;
        }
        p += len + (nl != NULL);
    }
    if (!g->file[0] || !g->nentries) {
        snprintf(err, errsize, "no file or no entry");
        cg_free(g);
        return NULL;
    }
    return g;
}

void cg_free(struct callgraph *g)
{
    if (!g)
        return;
    free(g->funcs);
    free(g->edges);
    free(g->entries);
    free(g->tasks);
    free(g);
}

/* "name (file:line)" -> name, file, line. */
static int split(const char *frame, char *name, char *file, long *line)
{
    const char *sp = strstr(frame, " (");
    const char *colon = strrchr(frame, ':');
    size_t n = strlen(frame);
    if (!sp || !colon || colon < sp || n < 4 || frame[n - 1] != ')' ||
        (size_t)(sp - frame) >= NAME_MAX_LEN ||
        (size_t)(colon - sp - 2) >= 1024)
        return -1;
    memcpy(name, frame, (size_t)(sp - frame));
    name[sp - frame] = 0;
    memcpy(file, sp + 2, (size_t)(colon - sp - 2));
    file[colon - sp - 2] = 0;
    char *end;
    *line = strtol(colon + 1, &end, 10);
    return end == colon + 1 || *end != ')' ? -1 : 0;
}

static const struct cg_func *func_of(const struct callgraph *g, const char *name)
{
    for (size_t i = 0; i < g->nfuncs; i++)
        if (!strcmp(g->funcs[i].name, name))
            return &g->funcs[i];
    return NULL;
}

static int has_edge(const struct callgraph *g, const char *caller, long line,
                    const char *callee, int resume)
{
    for (size_t i = 0; i < g->nedges; i++) {
        const struct cg_edge *e = &g->edges[i];
        if (e->line == line && e->resume == resume &&
            !strcmp(e->caller, caller) && !strcmp(e->callee, callee))
            return 1;
    }
    return 0;
}

/* Whether a task named task (NULL: any) runs func. */
static int runs_task(const struct callgraph *g, const char *func, const char *task)
{
    for (size_t i = 0; i < g->ntasks; i++)
        if (!strcmp(g->tasks[i].func, func) && (!task || !strcmp(g->tasks[i].name, task)))
            return 1;
    return 0;
}

static int is_entry(const struct callgraph *g, const char *name)
{
    for (size_t i = 0; i < g->nentries; i++)
        if (!strcmp(g->entries[i], name))
            return 1;
    return 0;
}

/* The interpreter's own frozen modules (zipimport, importlib) run from C
 * while it starts, before the program's first frame: a stack of those
 * alone is the interpreter's, not the program's. */
static int interpreter_own(const char *const *frames, size_t depth)
{
    for (size_t i = 0; i < depth; i++) {
        size_t n = strlen(frames[i]);
        /* the C functions they call (pyprof(7), "C calls") */
        int c_call = i && n > 6 && !strcmp(frames[i] + n - 6, " (~:0)");
        if (!strstr(frames[i], " (<frozen ") && !c_call)
            return 0;
    }
    return depth > 0;
}

/* Whether frame fr, "NAME (FILE:LINE)", is function name of a file whose
 * path ends in suffix. */
static int frame_of(const char *fr, const char *name, const char *suffix)
{
    char n[NAME_MAX_LEN], f[1024];
    long line;
    size_t fl, sl = strlen(suffix);
    return split(fr, n, f, &line) == 0 && !strcmp(n, name) &&
           (fl = strlen(f)) >= sl && !strcmp(f + fl - sl, suffix);
}

/* Py_FinalizeEx runs the standard library from C once the program has
 * ended: threading's _shutdown (joining the threads left), then the
 * atexit callbacks (logging's shutdown, which asyncio's import of logging
 * registers; weakref's finalizers; multiprocessing's exit function).  A
 * stack under one of those, with no frame of the program in it, is the
 * interpreter's own finalization. */
static int interpreter_finalizing(const struct callgraph *g, const char *const *frames,
                                  size_t depth)
{
    static const char *const exits[][2] = {
        { "_shutdown", "/threading.py" },
        { "shutdown", "/logging/__init__.py" },
        { "finalize._exitfunc", "/weakref.py" },
        { "_exitfunc", "/weakref.py" },          /* 3.10: no class in the name */
        { "_exit_function", "/multiprocessing/util.py" },
    };
    size_t k, n = sizeof exits / sizeof *exits;
    for (k = 0; k < n && !frame_of(frames[0], exits[k][0], exits[k][1]); k++)
        ;
    if (k == n)
        return 0;
    for (size_t i = 0; i < depth; i++) {
        char name[NAME_MAX_LEN], file[1024];
        long line;
        if (split(frames[i], name, file, &line) != 0 || !strcmp(file, g->file))
            return 0;
    }
    return 1;
}

enum cg_verdict cg_check(const struct callgraph *g, const char *const *frames,
                         size_t depth, size_t *at)
{
    char caller[NAME_MAX_LEN] = "";
    long caller_line = 0;
    *at = 0;
    if (!depth)
        return CG_EMPTY;
    if (interpreter_own(frames, depth) || interpreter_finalizing(g, frames, depth))
        return CG_OK;
    /* A stack deeper than the sampler's cap keeps its innermost frames
     * under pyprof-merge's <truncated> root: its outermost kept frame can
     * be any function, called from frames that were cut. */
    size_t from = 0;
    if (!strncmp(frames[0], "<truncated> (", 13))
        from = 1;
    /* The cyclic GC running on the thread: pyprof's <GC> on top of the
     * frame whose allocation started it, which need not be at a call. */
    if (depth > from && !strcmp(frames[depth - 1], "<GC> (~:0)"))
        depth--;
    if (from == depth)
        return CG_EMPTY;
    /* What came since the last frame of the program: nothing, frames of
     * other files (asyncio's event loop, what an await runs), or a task. */
    enum { AFTER_PROGRAM, AFTER_FOREIGN, AFTER_TASK } after = AFTER_PROGRAM;
    char task[NAME_MAX_LEN] = "";
    for (size_t i = from; i < depth; i++) {
        char name[NAME_MAX_LEN], file[1024];
        long line;
        *at = i;
        if (split(frames[i], name, file, &line) != 0)
            return CG_BAD_FRAME;
        int pseudo = !strcmp(file, "~") && line == 0;
        /* A C function: its caller's line must call one (or its caller
         * is not the program's); the frame above it (a Python function it
         * called back) is then checked against that caller, as if the C
         * function were not there. */
        if (pseudo && pp_is_c_call(file, name)) {
            if (i == from || after == AFTER_TASK ||
                (after == AFTER_PROGRAM && !has_edge(g, caller, caller_line, "", 2)))
                return CG_NOT_C_CALL;
            continue;
        }
        /* A task: over the event loop's frames, or over a coroutine on a
         * line where it awaits (and what that await runs). */
        if (pseudo && !strncmp(name, "<task", 5) && g->ntasks) {
            if (i == from || after == AFTER_TASK ||
                (after == AFTER_PROGRAM && !has_edge(g, caller, caller_line, "", 3)))
                return CG_NOT_TASK;
            after = AFTER_TASK;
            memcpy(task, name, sizeof name);
            continue;
        }
        /* Frames of other files, in a program with tasks: the event loop,
         * above a call of the program's (asyncio.run), and what an await
         * runs, above the line that awaits. */
        if (g->ntasks && strcmp(file, g->file) && i > from && after != AFTER_TASK) {
            if (after == AFTER_PROGRAM && !has_edge(g, caller, caller_line, "", 2) &&
                !has_edge(g, caller, caller_line, "", 3))
                return CG_FOREIGN;
            after = AFTER_FOREIGN;
            continue;
        }
        int module = !strcmp(name, "<module>");
        const struct cg_func *f = module ? NULL : func_of(g, name);
        if (strcmp(file, g->file) != 0 || (!module && !f))
            return CG_FOREIGN;
        /* -1: the innermost frame is at an instruction that has no line
         * (a loop's jump back in 3.11, exception clean-up): a real moment,
         * but never a call. */
        if (f && (line < f->first || line > f->last) &&
            !(line == -1 && i == depth - 1))
            return CG_LINE_OUTSIDE;
        if (i == 0 && !is_entry(g, name))
            return CG_NOT_ENTRY;
        /* A task runs its own function; the event loop runs a task's
         * function where the task was not read (before 3.14). */
        if (after == AFTER_TASK && !runs_task(g, name, task))
            return CG_NOT_TASK;
        if (after == AFTER_FOREIGN && !runs_task(g, name, NULL))
            return CG_NOT_TASK;
        if (i > from && after == AFTER_PROGRAM) {
            int resumed = f && f->resumed;
            if (!has_edge(g, caller, caller_line, name, resumed))
                return resumed ? CG_NOT_RESUMED : CG_NOT_CALLED;
        }
        after = AFTER_PROGRAM;
        memcpy(caller, name, sizeof name);
        caller_line = line;
    }
    return CG_OK;
}

void cg_describe(enum cg_verdict v, size_t at, const char *const *frames, size_t depth,
                 char *buf, size_t cap)
{
    if (!cap)
        return;
    int w = snprintf(buf, cap, "%s at frame %zu:", cg_verdict_name(v), at);
    size_t n = w < 0 ? 0 : (size_t)w < cap ? (size_t)w : cap - 1;
    for (size_t k = 0; k < depth && n + 1 < cap; k++) {
        w = snprintf(buf + n, cap - n, "%s%s", k ? " > " : " ", frames[k]);
        n = w < 0 ? n : n + (size_t)w < cap ? n + (size_t)w : cap - 1;
    }
}

const char *cg_verdict_name(enum cg_verdict v)
{
    static const char *const names[] = {
        [CG_OK] = "ok",
        [CG_EMPTY] = "no frame",
        [CG_BAD_FRAME] = "malformed frame",
        [CG_FOREIGN] = "frame of another file or an unknown function",
        [CG_LINE_OUTSIDE] = "frame on a line outside its function",
        [CG_NOT_ENTRY] = "outermost frame is not a thread entry",
        [CG_NOT_CALLED] = "caller's line does not call the frame above it",
        [CG_NOT_RESUMED] = "generator/coroutine under a line that does not resume it",
        [CG_NOT_C_CALL] = "C function above a line that calls none",
        [CG_NOT_TASK] = "task where nothing awaits it, or running another function",
    };
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}
