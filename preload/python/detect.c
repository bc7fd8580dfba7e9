/*
 * detect.c — finds this process's CPython, chooses its layout once, and
 * tells when it is ready to be sampled; hands what it found to the walk
 * (walk.c) and the code cache.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/loaded_symbol.h"
#include "base/log.h"
#include "guard/safe_read.h"
#include "python/ccall.h"
#include "python/codecache.h"
#include "python/asyncio_tasks.h"
#include "python/exc_state.h"
#include "python/framecache.h"
#include "python/layout/layout.h"
#include "python/pyvm.h"
#include "python/thread_name.h"
#include "python/walk.h"

static const struct py_layout *L;
static struct py_layout dbg_layout;
static uintptr_t runtime;
static int (*is_initialized)(void);
static char version[32];
static int free_threaded;
static int layout_checked;          /* 0 unknown, 1 good, -1 refused */
static char refusal[160];
static int pthread_tid_off = -1;    /* 3.10: tid inside glibc's struct pthread */
static uint8_t tid_candidates[512]; /* offsets matching in the main thread */

/* ------------------------------------------------------------ detection */

static void find_pthread_tid_candidates(void)
{
    /* glibc does not publish where struct pthread keeps the kernel tid;
     * find it by looking for our own tid in our own descriptor, and
     * confirm it later in the sampler thread (two threads must agree). */
    pid_t tid = (pid_t)syscall(SYS_gettid);
    uintptr_t self = (uintptr_t)pthread_self();
    for (unsigned off = 0; off < sizeof tid_candidates * 4; off += 4) {
        pid_t v;
        if (safe_read(&v, self + off, sizeof v) == 0 && v == tid)
            tid_candidates[off / 4] = 1;
    }
}

static void confirm_pthread_tid_offset(void)
{
    pid_t tid = (pid_t)syscall(SYS_gettid);
    uintptr_t self = (uintptr_t)pthread_self();
    for (unsigned off = 0; off < sizeof tid_candidates * 4; off += 4) {
        pid_t v;
        if (tid_candidates[off / 4] && safe_read(&v, self + off, sizeof v) == 0 &&
            v == tid) {
            pthread_tid_off = (int)off;
            walk_thread_id_at(pthread_tid_off);
            return;
        }
    }
    pthread_tid_off = -2;   /* not found: threads keep tid 0 */
    walk_thread_id_at(pthread_tid_off);
    pp_log(1, "cannot locate the thread id in glibc's thread descriptor; "
              "on-CPU state is unknown on this Python");
}

/* Notes why this CPython is not read; -1 for pyvm_detect to return. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(refusal, sizeof refusal, fmt, ap);
    va_end(ap);
    return -1;
}

const char *pyvm_refusal(void) { return refusal; }

/* Major.minor.micro from Py_Version (3.11+) or Py_GetVersion() (3.10). */
static int read_version(int *minor)
{
    const unsigned long *hex = dlsym(RTLD_DEFAULT, "Py_Version");
    if (hex) {
        unsigned long v = *hex;
        *minor = (int)((v >> 16) & 0xff);
        snprintf(version, sizeof version, "%lu.%lu.%lu", v >> 24,
                 (v >> 16) & 0xff, (v >> 8) & 0xff);
        return (v >> 24) == 3 ? 0 : -1;
    }
    const char *(*get)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT,
                                                            "Py_GetVersion");
    if (!get)
        return -1;
    const char *s = get();
    int maj = 0, min = 0, mic = 0;
    if (sscanf(s, "%d.%d.%d", &maj, &min, &mic) < 2 || maj != 3)
        return -1;
    *minor = min;
    snprintf(version, sizeof version, "%d.%d.%d", maj, min, mic);
    return 0;
}

int pyvm_detect(void)
{
    /* Asked of the objects first: a failed dlsym starts malloc
     * (base/loaded_symbol.h) in every program that is no Python. */
    if (!loaded_symbol_may_exist("_PyRuntime"))
        return 0;
    void *rt = dlsym(RTLD_DEFAULT, "_PyRuntime");
    if (!rt)
        return 0;
    int minor;
    if (read_version(&minor) != 0)
        return refuse("cannot tell which Python this is");
    runtime = (uintptr_t)rt;
    is_initialized = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    uintptr_t code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    uintptr_t str_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    uintptr_t bytes_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyBytes_Type");
    uintptr_t type_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyType_Type");
    if (!is_initialized || !code_type || !str_type ||
        !bytes_type || !type_type)
        return refuse("Python %s does not export the symbols pyprof needs", version);
    const char *why = NULL;
    switch (minor) {
    case 10: L = &py310_layout; break;
    case 11: L = &py311_layout; break;
    case 12: L = &py312_layout; break;
    case 13:
    case 14:
    case 15:
        if (debug_offsets_layout(runtime, minor, &dbg_layout, &why) == 0)
            L = &dbg_layout;
        break;
    default:
        why = "this version is not supported";
    }
    if (!L)
        return refuse("Python %s: %s", version, why);
    free_threaded = L->gil == GIL_NONE;
    uintptr_t init_shim_code = 0;
    if (L->init_shim_symbol)
        init_shim_code = (uintptr_t)dlsym(RTLD_DEFAULT, L->init_shim_symbol);
    /* A debug build (Py_TRACE_REFS) moves every object header: the type of
     * PyUnicode_Type must sit where our layout says. */
    int ok = 1;
    if (rd_ptr(str_type + L->ob_type, &ok) != type_type || !ok) {
        L = NULL;
        return refuse("Python %s: object layout differs (debug build?)", version);
    }
    if (L->frames == FRAMES_OBJECTS && !L->ts_native_tid)
        find_pthread_tid_candidates();
    /* 3.15's frame cache writes only into thread states inside the
     * runtime's static storage (python/framecache.h). */
    Dl_info rt_info;
    const ElfW(Sym) *rt_sym = NULL;
    if (L->ts_last_profiled &&
        dladdr1(rt, &rt_info, (void **)&rt_sym, RTLD_DL_SYMENT) && rt_sym)
        framecache_init(L->ts_last_profiled, L->ts_last_profiled_seq,
                        runtime, rt_sym->st_size);
    codecache_types(code_type, str_type, bytes_type);
    exc_state_attach(L, (uintptr_t)dlsym(RTLD_DEFAULT, "_Py_NoneStruct"));
    thread_name_attach(L, str_type, (uintptr_t)dlsym(RTLD_DEFAULT, "PyModule_Type"));
    asyncio_tasks_attach(L, (uintptr_t)dlsym(RTLD_DEFAULT, "PyCoro_Type"), str_type);
    ccall_attach(L, (uintptr_t)dlsym(RTLD_DEFAULT, "PyCFunction_Type"),
                 (uintptr_t)dlsym(RTLD_DEFAULT, "PyCMethod_Type"),
                 (uintptr_t)dlsym(RTLD_DEFAULT, "PyMethodDescr_Type"),
                 (uintptr_t)dlsym(RTLD_DEFAULT, "PyClassMethodDescr_Type"),
                 str_type);
    if (walk_attach(L, runtime, init_shim_code) != 0) {
        L = NULL;
        return refuse("out of memory");
    }
    return 1;
}

const char *pyvm_version(void) { return version; }
int pyvm_free_threaded(void) { return free_threaded; }

/* ------------------------------------------------------------ readiness */

/* One-time check that the chosen layout fits what is really there. */
static int check_layout(void)
{
    int ok = 1;
    uintptr_t interp = rd_ptr(runtime + L->rt_interp_head, &ok);
    uintptr_t ts = interp ? rd_ptr(interp + L->is_threads_head, &ok) : 0;
    if (!ok || !interp)
        return 0;                  /* not yet: try again next tick */
    if (!ts)
        return 0;
    if (rd_ptr(ts + L->ts_interp, &ok) != interp || !ok)
        return refuse("Python %s: thread state layout does not match", version);
    return 1;
}

int pyvm_refused(void) { return layout_checked < 0; }

int pyvm_ready(void)
{
    if (!L || layout_checked < 0 || !is_initialized())
        return 0;
    int ok = 1;
    if (rd_ptr(runtime + L->rt_finalizing, &ok) != 0 || !ok)
        return 0;
    if (!layout_checked) {
        layout_checked = check_layout();
        if (layout_checked <= 0)
            return 0;
        if (pthread_tid_off == -1 && L->frames == FRAMES_OBJECTS)
            confirm_pthread_tid_offset();
    }
    return 1;
}
