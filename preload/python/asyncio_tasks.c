/*
 * asyncio_tasks.c — a thread's running asyncio task and its awaiters
 * (asyncio_tasks.h).
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guard/safe_read.h"
#include "python/asyncio_tasks.h"
#include "python/codecache.h"
#include "python/layout/layout.h"
#include "python/pystr.h"

static const struct py_layout *L;
static uintptr_t coro_type, str_type;
static _Atomic unsigned loaded;     /* dlopen calls seen                 */
static unsigned looked;             /* `loaded` at the last look         */
static int found, looked_once;

/* The _asyncio module's Py_AsyncioModuleDebugOffsets (3.14 and 3.15 alike:
 * a task group, an interpreter group and a thread-state group of uint64
 * offsets, each group's first one the size of its struct). */
static struct {
    uint64_t task_size, task_name, task_awaited_by, task_is_task,
             task_awaited_by_is_set, task_coro, task_node;
    uint64_t interp_size, interp_tasks_head;
    uint64_t ts_size, ts_running_loop, ts_running_task, ts_tasks_head;
} dbg;

void asyncio_tasks_attach(const struct py_layout *l, uintptr_t coro, uintptr_t str)
{
    L = l->task.gen_iframe && coro && str ? l : NULL;
    coro_type = coro;
    str_type = str;
}

void asyncio_tasks_loaded(void)
{
    atomic_fetch_add_explicit(&loaded, 1, memory_order_relaxed);
}

/* ------------------------------------------------ finding the section */

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

/* The file offset and size of path's .AsyncioDebug section (ELF64 little
 * endian, as the x86-64 builds pyprof reads); -1 when it has none.  The
 * section headers are read 64 at a time and the section names at once. */
static int section_of(const char *path, uint64_t *off, uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = -1;
    static uint8_t sh[64 * 64];
    static char names[65536];
    uint8_t eh[64];
    if (pread_all(fd, eh, sizeof eh, 0) != 0 || memcmp(eh, "\177ELF", 4) ||
        eh[4] != 2 || eh[5] != 1)
        goto out;
    uint64_t shoff, str_off, str_size;
    uint16_t shentsize, shnum, shstrndx;
    memcpy(&shoff, eh + 40, 8);
    memcpy(&shentsize, eh + 58, 2);
    memcpy(&shnum, eh + 60, 2);
    memcpy(&shstrndx, eh + 62, 2);
    if (shentsize != 64 || !shnum || shnum > 4096 || shstrndx >= shnum ||
        pread_all(fd, sh, 64, shoff + (uint64_t)shstrndx * 64) != 0)
        goto out;
    memcpy(&str_off, sh + 24, 8);
    memcpy(&str_size, sh + 32, 8);
    if (str_size > sizeof names - 1 || pread_all(fd, names, str_size, str_off) != 0)
        goto out;
    names[str_size] = 0;
    for (unsigned i = 0; i < shnum && rc; i += 64) {
        unsigned n = shnum - i < 64 ? shnum - i : 64;
        if (pread_all(fd, sh, (size_t)n * 64, shoff + (uint64_t)i * 64) != 0)
            goto out;
        for (unsigned k = 0; k < n && rc; k++) {
            uint32_t at;
            memcpy(&at, sh + k * 64, 4);
            if (at < str_size && !strcmp(names + at, ".AsyncioDebug")) {
                memcpy(off, sh + k * 64 + 24, 8);
                memcpy(size, sh + k * 64 + 32, 8);
                rc = 0;
            }
        }
    }
out:
    close(fd);
    return rc;
}

/* Candidate files already read and found without the section, so that
 * the look after each dlopen does not read them again. */
#define CHECKED 8
static char checked[CHECKED][256];
static unsigned nchecked;

static int was_checked(const char *path)
{
    for (unsigned i = 0; i < nchecked && i < CHECKED; i++)
        if (!strcmp(checked[i], path))
            return 1;
    return 0;
}

/* Whether a mapped file may hold _asyncio: the module itself, libpython,
 * or an interpreter that has it built in (Debian's 3.15). */
static int candidate(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, "_asyncio.", 9) || !strncmp(base, "libpython3", 10) ||
           !strncmp(base, "python3", 7);
}

/* Reads the section's offsets from memory at addr and checks them. */
static int take_offsets(uintptr_t addr)
{
    if (safe_read(&dbg, addr, sizeof dbg) != 0)
        return 0;
    uint64_t t = dbg.task_size, s = dbg.ts_size;
    return t >= 64 && t <= 1024 && dbg.task_name + 8 <= t &&
           dbg.task_awaited_by + 8 <= t && dbg.task_is_task < t &&
           dbg.task_awaited_by_is_set < t && dbg.task_coro + 8 <= t &&
           s >= 64 && s <= 65536 && dbg.ts_running_task + 8 <= s;
}

int asyncio_tasks_use(const uint64_t offsets[13])
{
    found = take_offsets((uintptr_t)offsets);
    return found;
}

/* One pass over /proc/self/maps: each candidate file's section, at the
 * address where its mapping holds the section's file offset. */
static int look(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    static char buf[16384];
    char last[512] = "";
    uint64_t sec_off = 0, sec_size = 0;
    int has = 0, ok = 0;
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        buf[len] = 0;
        char *line = buf, *nl;
        while (!ok && (nl = strchr(line, '\n'))) {
            *nl = 0;
            unsigned long start, end, moff;
            int path_at = -1;
            if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &moff,
                       &path_at) >= 3 && path_at > 0 && line[path_at] == '/') {
                const char *path = line + path_at;
                if (strcmp(path, last)) {
                    snprintf(last, sizeof last, "%s", path);
                    has = candidate(path) && !was_checked(path) &&
                          section_of(path, &sec_off, &sec_size) == 0 &&
                          sec_size >= sizeof dbg;
                    if (!has && candidate(path) && !was_checked(path) &&
                        strlen(path) < sizeof *checked)
                        snprintf(checked[nchecked++ % CHECKED], sizeof *checked, "%s", path);
                }
                if (has && sec_off >= moff && sec_off - moff < end - start)
                    ok = take_offsets(start + (sec_off - moff));
            }
            line = nl + 1;
        }
        if (ok)
            break;
        len = (size_t)(buf + len - line);
        memmove(buf, line, len);
        if (len == sizeof buf - 1)      /* a line longer than the buffer */
            len = 0;
    }
    close(fd);
    return ok;
}

int asyncio_tasks_ready(void)
{
    if (!L)
        return 0;
    if (found)
        return 1;
    unsigned now = atomic_load_explicit(&loaded, memory_order_relaxed);
    if (looked_once && now == looked)
        return 0;
    looked = now;
    looked_once = 1;
    found = look();
    return found;
}

/* ------------------------------------------------------ reading tasks */

static uintptr_t word(const uint8_t *raw, uint64_t off)
{
    uintptr_t v;
    memcpy(&v, raw + off, sizeof v);
    return v;
}

static int type_is(uintptr_t obj, uintptr_t type)
{
    uintptr_t t;
    return obj && safe_read(&t, obj + L->ob_type, sizeof t) == 0 && t == type;
}

/* The task object at task (its first dbg.task_size bytes into raw), if it
 * is one: its flag says so and its coroutine is a coroutine. */
static int read_task(uintptr_t task, uint8_t *raw)
{
    return task && safe_read(raw, task, dbg.task_size) == 0 &&
           raw[dbg.task_is_task] == 1 &&
           type_is(word(raw, dbg.task_coro), coro_type);
}

/* asyncio's own names (Task-1, Task-2: a number until someone asks for
 * the name, then that string) are all "", so that a server's thousands of
 * request tasks add up in one place. */
static void task_name(const uint8_t *raw, char *out, size_t cap)
{
    uintptr_t name = word(raw, dbg.task_name);
    out[0] = 0;
    if (!type_is(name, str_type) || pystr_utf8(&L->str, safe_read, name, out, cap) < 0) {
        out[0] = 0;
        return;
    }
    if (!strncmp(out, "Task-", 5) && out[5]) {
        const char *p = out + 5;
        while (*p >= '0' && *p <= '9')
            p++;
        if (!*p)
            out[0] = 0;
    }
}

/* The frame of a suspended coroutine and whether it awaits another
 * awaitable (*yf, 0 when none or not a coroutine). */
static int coro_frame(uintptr_t coro, struct pyvm_frame *f, uintptr_t *yf)
{
    const struct task_layout *k = &L->task;
    int8_t state;
    *yf = 0;
    if (safe_read(&state, coro + k->gen_frame_state, 1) != 0)
        return -1;
    uintptr_t fr = coro + k->gen_iframe;
    uint8_t raw[512];
    uint32_t span = k->fr_stackpointer > L->fr_read ? k->fr_stackpointer + 8 : L->fr_read;
    if (span > sizeof raw || safe_read(raw, fr, span) != 0)
        return -1;
    uintptr_t code = word(raw, L->fr_code) & ~L->code_tag_mask;
    uintptr_t instr = word(raw, L->fr_instr);
    struct code_info *info = code ? codecache_get(L, code) : NULL;
    if (!info)
        return -1;
    intptr_t d = (intptr_t)instr - (intptr_t)(code + L->co_code_adaptive);
    int32_t lasti = d < 0 || d > (1 << 28) ? -1 : (int32_t)(d / 2);
    *f = (struct pyvm_frame){ .code = info, .addr = fr,
                              .line = codecache_line(L, info, lasti) };
    if (state == k->awaiting || state == k->awaiting_locked) {
        uintptr_t sp = word(raw, k->fr_stackpointer), top;
        if (sp > fr && safe_read(&top, sp - 8, sizeof top) == 0) {
            top &= ~L->code_tag_mask;
            if (type_is(top, coro_type))
                *yf = top;
        }
    }
    return 0;
}

/* The awaiting task's await stack, innermost first, into link. */
static void await_stack(uintptr_t coro, struct task_link *link)
{
    struct pyvm_frame outer_first[TASK_AWAIT_MAX];
    unsigned n = 0;
    while (coro && n < TASK_AWAIT_MAX) {
        uintptr_t yf;
        if (coro_frame(coro, &outer_first[n], &yf) != 0)
            break;
        n++;
        coro = yf;
    }
    link->nframes = n;
    for (unsigned i = 0; i < n; i++)
        link->frames[i] = outer_first[n - 1 - i];
}

/* The task awaiting the one in raw: its awaited_by, or, when that is a
 * set (several awaiters), the first task in the set's table. */
static uintptr_t awaiter(const uint8_t *raw)
{
    uintptr_t by = word(raw, dbg.task_awaited_by);
    if (!by || !raw[dbg.task_awaited_by_is_set])
        return by;
    /* PySetObject: fill, used, mask, table after the object header (the
     * same from 3.11 to 3.15); entries are (key, hash). */
    uint8_t set[48];
    if (safe_read(set, by, sizeof set) != 0)
        return 0;
    uintptr_t mask = word(set, 32), table = word(set, 40);
    uint8_t tmp[1024];
    for (uintptr_t i = 0; i <= mask && i < 64; i++) {
        uintptr_t key;
        if (safe_read(&key, table + i * 16, sizeof key) != 0)
            return 0;
        if (key && read_task(key, tmp))
            return key;
    }
    return 0;
}

/* From the task in raw (read at task) outward through the tasks awaiting
 * it, into c; the first one's await stack too unless it runs. */
static void chain_from(uintptr_t task, uint8_t *raw, struct task_chain *c, int runs)
{
    c->n = 0;
    uintptr_t seen[TASK_CHAIN_MAX];
    for (;;) {
        struct task_link *link = &c->links[c->n];
        task_name(raw, link->name, sizeof link->name);
        link->nframes = 0;
        if (c->n || !runs)
            await_stack(word(raw, dbg.task_coro), link);
        seen[c->n++] = task;
        if (c->n == TASK_CHAIN_MAX)
            break;
        task = awaiter(raw);
        for (unsigned i = 0; task && i < c->n; i++)
            if (seen[i] == task)
                task = 0;               /* a loop: only a torn read */
        if (!task || !read_task(task, raw))
            break;
    }
}

int asyncio_task_chain(uintptr_t tstate, struct task_chain *c)
{
    uintptr_t task;
    if (!asyncio_tasks_ready() ||
        safe_read(&task, tstate + dbg.ts_running_task, sizeof task) != 0 || !task)
        return 0;
    uint8_t raw[1024];
    if (!read_task(task, raw))
        return 0;
    uintptr_t coro = word(raw, dbg.task_coro);
    int8_t state;
    if (safe_read(&state, coro + L->task.gen_frame_state, 1) != 0 ||
        state != L->task.executing)
        return 0;
    c->frame = coro + L->task.gen_iframe;
    chain_from(task, raw, c, 1);
    return 1;
}

/* ------------------------------------------------------ pending tasks */

unsigned asyncio_pending_tasks(uintptr_t tstate, unsigned stride, unsigned phase,
                               uintptr_t *tasks, unsigned cap, unsigned *total)
{
    *total = 0;
    if (!asyncio_tasks_ready() || !stride)
        return 0;
    uintptr_t running = 0, head = tstate + dbg.ts_tasks_head, node;
    if (safe_read(&running, tstate + dbg.ts_running_task, sizeof running) != 0 ||
        safe_read(&node, head, sizeof node) != 0)
        return 0;
    /* struct llist_node: next, prev; the list ends back at its head */
    unsigned n = 0, i = 0;
    for (; node && node != head && i < TASK_LIST_MAX; i++) {
        uintptr_t task = node - dbg.task_node;
        if (task != running && i % stride == phase % stride && n < cap)
            tasks[n++] = task;
        if (safe_read(&node, node, sizeof node) != 0)
            break;
    }
    *total = i;
    return n;
}

int asyncio_waiting_chain(uintptr_t task, struct task_chain *c)
{
    uint8_t raw[1024];
    if (!L || !found || !read_task(task, raw))
        return 0;
    uintptr_t coro = word(raw, dbg.task_coro);
    int8_t state;
    /* a task whose coroutine runs (another thread's loop drives it, or it
     * started since the list was read) is on that thread's stack */
    if (safe_read(&state, coro + L->task.gen_frame_state, 1) != 0 ||
        state == L->task.executing)
        return 0;
    c->frame = 0;
    chain_from(task, raw, c, 0);
    return c->links[0].nframes > 0;
}
