/*
 * ccall.c — the C function a Python frame stands calling (ccall.h).
 *
 * Names are cProfile's, which pstats and the tools built on it show:
 * "<built-in method MODULE.NAME>" for a function of a module (time.sleep,
 * builtins.len), "<method 'NAME' of 'TYPE' objects>" for a method of a C
 * type, called through its descriptor (str.join, re.Pattern.match) or
 * bound to an object (the object's type), "<built-in method NAME>" when
 * neither is known.  The file is "~" and the line 0, as cProfile has it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard/safe_read.h"
#include "pyprof/c_call.h"
#include "python/ccall.h"
#include "python/codecache.h"
#include "python/framecache.h"
#include "python/layout/layout.h"
#include "python/pystr.h"
#include "python/stackdepth.h"
#include "python/tscache.h"
#include "python/walk.h"

/* PyCFunctionObject and PyMethodDescrObject (the same in 3.14 and 3.15:
 * their headers, and the objects of both read with ctypes), PyTypeObject's
 * tp_name and PyMethodDef's ml_name: all after a 16-byte object head. */
#define CF_ML       16
#define CF_SELF     24
#define CF_MODULE   32
#define DESCR_TYPE  16
#define DESCR_ML    40
#define TP_NAME     24
#define ML_NAME      0

static const struct py_layout *L;
static uintptr_t t_cfunction, t_cmethod, t_mdescr, t_cmdescr, t_str;

void ccall_attach(const struct py_layout *l, uintptr_t cfunction,
                  uintptr_t cmethod, uintptr_t method_descr,
                  uintptr_t classmethod_descr, uintptr_t str_type)
{
    if (!l->stack || !l->fr_stackpointer || !l->fr_localsplus ||
        !cfunction || !method_descr || !str_type)
        return;
    L = l;
    t_cfunction = cfunction;
    t_cmethod = cmethod;
    t_mdescr = method_descr;
    t_cmdescr = classmethod_descr;
    t_str = str_type;
}

/* ------------------------------------------------------------- names */

#define NAMES      512        /* power of two */
#define NAME_MAX_  256
#define PART_MAX   72

struct cname {
    uintptr_t ml, qual;       /* PyMethodDef; module name or type    */
    uint8_t how;              /* which of the three forms            */
    char text[NAME_MAX_];
    struct code_info code;
};

static struct cname *names;
static uint32_t generation = 1;

uint32_t ccall_generation(void) { return generation; }

static int rd(void *dst, uintptr_t src, size_t n) { return safe_read(dst, src, n); }

/* A C string of the interpreter's (a method's or type's name): printable
 * ASCII, cut at PART_MAX - 1 bytes.  0 when unreadable or empty. */
static int c_string(uintptr_t at, char *out)
{
    char buf[PART_MAX];
    size_t n = 0;
    /* Read in pieces that stop short of a page end: a name near the end
     * of a mapping must not fail for the bytes after it. */
    while (n < sizeof buf - 1) {
        size_t room = 4096 - ((at + n) & 4095), want = sizeof buf - 1 - n;
        if (want > room)
            want = room;
        if (safe_read(buf + n, at + n, want) != 0)
            return 0;
        void *nul = memchr(buf + n, 0, want);
        if (nul) {
            n = (size_t)((char *)nul - buf);
            break;
        }
        n += want;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = buf[i] > 0x20 && buf[i] < 0x7f ? buf[i] : '?';
    out[n] = 0;
    return n > 0;
}

enum { HOW_MODULE, HOW_TYPE, HOW_BARE };

static struct code_info *name_of(uintptr_t ml, uintptr_t qual, int how)
{
    if (!names && !(names = calloc(NAMES, sizeof *names)))
        return NULL;
    uint64_t h = (ml * 0x9E3779B97F4A7C15ull) ^ (qual * 0xC2B2AE3D27D4EB4Full) ^
                 (uint64_t)how;
    struct cname *e = &names[(h >> 32) & (NAMES - 1)];
    if (e->code.qualname && e->ml == ml && e->qual == qual && e->how == how)
        return &e->code;

    int ok = 1;
    char fn[PART_MAX], q[PART_MAX * 2];
    if (!c_string(rd_ptr(ml + ML_NAME, &ok), fn) || !ok)
        return NULL;
    if (how == HOW_MODULE &&
        pystr_utf8(&L->str, rd, qual, q, PART_MAX) <= 0)
        return NULL;
    if (how == HOW_TYPE && (!c_string(rd_ptr(qual + TP_NAME, &ok), q) || !ok))
        return NULL;
    if (e->code.qualname)
        generation++;             /* the slot's old name may be in use */
    memset(e, 0, sizeof *e);
    if (how == HOW_MODULE)
        snprintf(e->text, sizeof e->text, PP_C_CALL_BUILTIN "%s.%s>", q, fn);
    else if (how == HOW_TYPE)
        snprintf(e->text, sizeof e->text, PP_C_CALL_METHOD "%s' of '%s' objects>", fn, q);
    else
        snprintf(e->text, sizeof e->text, PP_C_CALL_BUILTIN "%s>", fn);
    e->ml = ml;
    e->qual = qual;
    e->how = (uint8_t)how;
    e->code.qualname = e->text;
    e->code.name = e->text;
    e->code.filename = PP_C_CALL_FILE;
    return &e->code;
}

/* What names a C callable, read in one guarded section. */
struct parts {
    int how;                  /* HOW_*, or -1: not a C callable named here */
    uintptr_t ml, qual;
};

/* Reads the callable under the call's arguments and what names it, and
 * the frame's instruction and stack pointer again; only reads (a guarded
 * section: safe_read.h).  0 when the frame is not inside that call. */
static int read_parts(uintptr_t frame, uintptr_t instr, uintptr_t in_call,
                      uintptr_t slot, struct parts *p)
{
    int ok = 1;
    p->how = -1;
    if (rd_ptr(frame + L->fr_stackpointer, &ok) != in_call || !ok)
        return 0;
    uintptr_t obj = rd_ptr(slot, &ok) & ~L->code_tag_mask;
    uintptr_t type = obj ? rd_ptr(obj + L->ob_type, &ok) : 0;
    if (!ok || !type)
        return 0;
    if (type == t_cfunction || (t_cmethod && type == t_cmethod)) {
        p->ml = rd_ptr(obj + CF_ML, &ok);
        uintptr_t self = rd_ptr(obj + CF_SELF, &ok);
        uintptr_t mod = rd_ptr(obj + CF_MODULE, &ok);
        if (mod && rd_ptr(mod + L->ob_type, &ok) == t_str) {
            p->how = HOW_MODULE;
            p->qual = mod;
        } else if (self) {
            p->how = HOW_TYPE;
            p->qual = rd_ptr(self + L->ob_type, &ok);
        } else {
            p->how = HOW_BARE;
            p->qual = 0;
        }
    } else if (type == t_mdescr || (t_cmdescr && type == t_cmdescr)) {
        p->how = HOW_TYPE;
        p->qual = rd_ptr(obj + DESCR_TYPE, &ok);
        p->ml = rd_ptr(obj + DESCR_ML, &ok);
    }
    /* Still in that call: the callable read belongs to it. */
    return ok && p->how >= 0 && p->ml && (p->how != HOW_TYPE || p->qual) &&
           rd_ptr(frame + L->fr_instr, &ok) == instr &&
           rd_ptr(frame + L->fr_stackpointer, &ok) == in_call && ok;
}

static struct parts parts;            /* static: written under sigsetjmp */

static int read_parts_guarded(uintptr_t frame, uintptr_t instr,
                              uintptr_t in_call, uintptr_t slot)
{
    sigjmp_buf env;
    if (sigsetjmp(env, 0)) {
        safe_section_faulted();
        return 0;
    }
    safe_section_arm(&env);
    int ok = read_parts(frame, instr, in_call, slot, &parts);
    safe_section_end();
    return ok;
}

/* ------------------------------------------------------------- calls */

struct code_info *ccall_callee(const struct raw_frame *rf)
{
    struct code_info *c = rf->info;
    if (!L || !c)
        return NULL;
    int32_t lasti = lasti_of(L, rf);
    if (lasti < 0)
        return NULL;
    if (!c->depths_tried) {
        c->depths_tried = 1;
        c->depths = stackdepth_build(L, rf->code);
    }
    if (!c->depths)
        return NULL;
    const struct call_site *s = stackdepth_site(c->depths, (uint32_t)lasti);
    if (!s)
        return NULL;
    /* Under the arguments: the callable, then self or NULL (CALL,
     * CALL_KW, which has the keywords' names on top), or the callable,
     * NULL, the positional tuple and the keywords (CALL_FUNCTION_EX). */
    int64_t pos = s->kind == CS_CALL ? (int64_t)s->depth - 2 - s->oparg :
                  s->kind == CS_CALL_KW ? (int64_t)s->depth - 3 - s->oparg :
                  (int64_t)s->depth - 4;
    if (pos < 0)
        return NULL;
    uintptr_t stack = rf->addr + L->fr_localsplus +
                      8 * (uintptr_t)c->depths->nlocalsplus;
    if (!read_parts_guarded(rf->addr, rf->instr, stack + 8 * (uintptr_t)s->depth,
                            stack + 8 * (uintptr_t)pos))
        return NULL;
    return name_of(parts.ml, parts.qual, parts.how);
}
