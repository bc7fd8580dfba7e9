/*
 * proc_label.c — what a process runs, in a few words, for the places
 * that name processes (model.h, model_proc_label; pyprof-merge(1),
 * "Process labels").
 */
#include <string.h>

#include "model.h"
#include "pyprof/format.h"

/* Interpreter options that take the next argument as their value. */
static int takes_value(const char *opt)
{
    return !strcmp(opt, "-W") || !strcmp(opt, "-X") ||
           !strcmp(opt, "--check-hash-based-pycs");
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The role multiprocessing gives a process it starts with -c CODE, or
 * NULL. */
static const char *mp_role(const char *code)
{
    if (strstr(code, "multiprocessing.forkserver"))
        return "multiprocessing forkserver";
    if (strstr(code, "multiprocessing.resource_tracker") ||
        strstr(code, "multiprocessing.semaphore_tracker"))
        return "multiprocessing resource_tracker";
    if (strstr(code, "spawn_main"))
        return "multiprocessing spawn_main";
    return NULL;
}

/* Set when put cut what it was given: the label then ends in "...". */
static int cut;

/* Appends s (escaped, at most max bytes of it) to buf. */
static size_t put(char *buf, size_t n, size_t cap, const char *s, size_t max)
{
    size_t k = 0;
    for (; s[k] && k < max && n + 8 < cap; k++) {
        if (s[k] == '\n')
            break;                      /* -c code: its first line */
        n += model_escape_byte((unsigned char)s[k], buf + n);
    }
    cut |= s[k] != 0;
    buf[n] = 0;
    return n;
}

static void label_into(const struct m_proc *p, char *buf, size_t cap)
{
    const struct rd_file *f = p->f;
    size_t n = 0;
    buf[0] = 0;
    /* A title the program set itself says best what it is (gunicorn:
     * worker [app]); whole, as far as a label goes. */
    if (f->title && f->title[0] && cap >= 8) {
        put(buf, 0, cap, f->title, 96);
        return;
    }
    /* Empty arguments at the end are what a title written over the
     * command line's memory leaves of the others (tests/py/proctitle.py):
     * no trace, as in a TITLE's comparison (pyprof(5)). */
    size_t argc = f->argc;
    while (argc > 1 && !f->argv[argc - 1][0])
        argc--;
    if (!argc || cap < 8) {
        put(buf, 0, cap, "?", 1);
        return;
    }
    const char *prog = base_name(f->argv[0]);
    size_t i = 1;
    if (strncmp(prog, "python", 6)) {
        /* not an interpreter's command line (uwsgi, an embedding
         * program): the program and its first argument */
        n = put(buf, n, cap, prog, 64);
    } else {
        for (; i < argc && f->argv[i][0] == '-' && f->argv[i][1]; i++) {
            const char *o = f->argv[i];
            if (!strcmp(o, "--")) {
                i++;
                break;
            }
            if (!strcmp(o, "-m") && i + 1 < argc) {
                n = put(buf, n, cap, "-m ", 3);
                n = put(buf, n, cap, f->argv[i + 1], 64);
                i += 2;
                goto args;
            }
            if (!strcmp(o, "-c") && i + 1 < argc) {
                const char *role = mp_role(f->argv[i + 1]);
                if (role) {
                    /* the forkserver's children are the pool's workers,
                     * with its command line */
                    put(buf, n, cap, role, 64);
                    if (f->started_by == PP_START_FORK && strstr(role, "forkserver"))
                        put(buf, strlen(buf), cap, " worker", 16);
                    return;
                }
                n = put(buf, n, cap, "-c ", 3);
                n = put(buf, n, cap, f->argv[i + 1], 40);
                return;
            }
            if (takes_value(o))
                i++;
        }
        if (i >= argc) {
            put(buf, n, cap, prog, 64);     /* an interactive interpreter */
            return;
        }
        n = put(buf, n, cap, base_name(f->argv[i]), 64);
        i++;
    }
args:
    /* the arguments after the script or module, as far as they fit */
    for (; i < argc && n + 8 < cap && n < 96; i++) {
        n = put(buf, n, cap, " ", 1);
        n = put(buf, n, cap, f->argv[i], 96 - n);
    }
    cut |= i < argc;
}

void model_proc_label(const struct m_proc *p, char *buf, size_t cap)
{
    cut = 0;
    label_into(p, buf, cap);
    size_t n = strlen(buf);
    if (cut && n + 4 <= cap)
        memcpy(buf + n, "\xe2\x80\xa6", 4);     /* U+2026 and the NUL */
}
