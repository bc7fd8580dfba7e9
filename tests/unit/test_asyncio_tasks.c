/*
 * test_asyncio_tasks.c — the running asyncio task and the tasks awaiting
 * it, read from tasks forged in this process as 3.14's _asyncio and
 * runtime lay them out (python/asyncio_tasks.h): names as the program gave
 * them or asyncio's own, an awaiter's await stack through the coroutines
 * it awaits, several awaiters in a set, and what must stop a chain (a
 * loop, something that is not a task, a coroutine that is not running).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "guard/safe_read.h"
#include "python/asyncio_tasks.h"
#include "python/codecache.h"
#include "python/layout/layout.h"

#include "forged_objects.h"

static char coro_type, set_type, future_type;

/* _asyncio's section in 3.14.10 and 3.15.2 (but for the thread state's
 * group, which is 3.14's): task size, name, awaited_by, is_task,
 * awaited_by_is_set, coro, node; interpreter size, tasks head; thread
 * state size, running loop, running task, tasks head. */
static const uint64_t section[13] = { 168, 136, 96, 108, 109, 128, 152,
                                      225864, 10880, 936, 864, 872, 880 };
#define RUNNING_TASK 872

static struct py_layout layout;

static void use(void)
{
    cr_assert(safe_read_init() == 0);
    memset(pool, 0, sizeof pool);
    used = 0;
    layout = py312_layout;
    layout.code_tag_mask = 3;
    layout.task = (struct task_layout){ .gen_iframe = 72, .gen_frame_state = 67,
                                        .fr_stackpointer = 64, .awaiting = -1,
                                        .awaiting_locked = -1, .executing = 0 };
    L = &layout;
    codecache_reset();
    codecache_types((uintptr_t)&code_type, (uintptr_t)&str_type, (uintptr_t)&bytes_type);
    codecache_new_tick();
    asyncio_tasks_attach(L, (uintptr_t)&coro_type, (uintptr_t)&str_type);
    cr_assert(asyncio_tasks_use(section));
}

/* A coroutine running fn, in state (executing, or awaiting what: then
 * its frame's stack top, tagged as a stack reference). */
static uint8_t *coro(const char *fn, int8_t state, const uint8_t *what)
{
    uint8_t *c = block(512), *stack = block(64);
    put(c, L->ob_type, (uintptr_t)&coro_type);
    c[L->task.gen_frame_state] = (uint8_t)state;
    uint8_t *fr = c + L->task.gen_iframe;
    uint8_t *co = code(fn, "/app/svc.py");
    put(fr, L->fr_code, (uintptr_t)co | 1);
    put(fr, L->fr_instr, (uintptr_t)co + L->co_code_adaptive);
    put(stack, 0, (uintptr_t)what | 1);
    put(fr, L->task.fr_stackpointer, (uintptr_t)stack + 8);
    return c;
}

/* A task named name (NULL: asyncio's number) running c. */
static uint8_t *task(const char *name, uint8_t *c)
{
    uint8_t *t = block(256);
    t[section[3]] = 1;
    put(t, section[5], (uintptr_t)c);
    if (name) {
        put(t, section[1], (uintptr_t)str(name));
    } else {
        uint8_t *n = block(32);
        put(n, L->ob_type, (uintptr_t)&bytes_type);      /* not a str */
        put(t, section[1], (uintptr_t)n);
    }
    return t;
}

static uintptr_t thread_running(const uint8_t *t)
{
    uint8_t *ts = block(1024);
    put(ts, RUNNING_TASK, (uintptr_t)t);
    return (uintptr_t)ts;
}

static struct task_chain chain;

Test(asyncio_tasks, a_running_task_is_read_with_its_awaiters_and_where_they_await)
{
    use();
    uint8_t future[64] = { 0 };
    put(future, L->ob_type, (uintptr_t)&future_type);
    /* main awaits sleep, which awaits a future; worker-a runs */
    uint8_t *sleep = coro("sleep", -1, future);
    uint8_t *outer = task(NULL, coro("main", -1, sleep));
    uint8_t *running = coro("worker", 0, NULL);
    uint8_t *inner = task("worker-a", running);
    put(inner, section[2], (uintptr_t)outer);
    cr_assert_eq(asyncio_task_chain(thread_running(inner), &chain), 1);
    cr_expect_eq(chain.frame, (uintptr_t)running + L->task.gen_iframe);
    cr_assert_eq(chain.n, 2u);
    cr_expect_str_eq(chain.links[0].name, "worker-a");
    cr_expect_eq(chain.links[0].nframes, 0u);
    cr_expect_str_eq(chain.links[1].name, "");
    cr_assert_eq(chain.links[1].nframes, 2u);
    cr_expect_str_eq(chain.links[1].frames[0].code->name, "sleep");
    cr_expect_str_eq(chain.links[1].frames[1].code->name, "main");
    uintptr_t main_coro;
    memcpy(&main_coro, outer + section[5], sizeof main_coro);
    cr_expect_eq(chain.links[1].frames[1].addr, main_coro + L->task.gen_iframe);
}

/* asyncio's default names, as a number or as the string it makes of one,
 * are all ""; a name the program gave is kept whole. */
Test(asyncio_tasks, default_names_are_empty_and_given_names_kept)
{
    use();
    const char *given[] = { "Task-12", "Task-", "Task-1x", "fetch:42" };
    const char *want[] = { "", "Task-", "Task-1x", "fetch:42" };
    for (int i = 0; i < 4; i++) {
        uint8_t *t = task(given[i], coro("worker", 0, NULL));
        cr_assert_eq(asyncio_task_chain(thread_running(t), &chain), 1);
        cr_expect_str_eq(chain.links[0].name, want[i], "%s read as %s", given[i],
                         chain.links[0].name);
    }
}

/* Several awaiters (a set of them): the first task in the set's table,
 * past empty slots and what is not a task. */
Test(asyncio_tasks, of_several_awaiters_the_first_task_in_the_set_is_taken)
{
    use();
    uint8_t *a = task("first", coro("waits_a", -1, NULL));
    uint8_t *not_task = block(256);                   /* is_task 0 */
    uint8_t *set = block(64), *table = block(8 * 16);
    put(set, L->ob_type, (uintptr_t)&set_type);
    put(set, 32, 7);                                  /* mask: 8 slots */
    put(set, 40, (uintptr_t)table);
    put(table, 2 * 16, (uintptr_t)not_task);
    put(table, 5 * 16, (uintptr_t)a);
    uint8_t *t = task("child", coro("work", 0, NULL));
    put(t, section[2], (uintptr_t)set);
    t[section[4]] = 1;
    cr_assert_eq(asyncio_task_chain(thread_running(t), &chain), 1);
    cr_assert_eq(chain.n, 2u);
    cr_expect_str_eq(chain.links[1].name, "first");
    cr_expect_eq(chain.links[1].nframes, 1u);
}

/* Chains end: at a task seen before (a torn read), at an awaiter that is
 * not a task; and there is none when the running task's coroutine is not
 * running, or what the thread names is not a task. */
Test(asyncio_tasks, chains_stop_where_they_must_and_non_tasks_are_none)
{
    use();
    uint8_t *a = task("a", coro("fa", 0, NULL)), *b = task("b", coro("fb", -1, NULL));
    put(a, section[2], (uintptr_t)b);
    put(b, section[2], (uintptr_t)a);
    cr_assert_eq(asyncio_task_chain(thread_running(a), &chain), 1);
    cr_expect_eq(chain.n, 2u, "a loop of two tasks read as %u", chain.n);

    uint8_t *c = task("c", coro("fc", 0, NULL));
    put(c, section[2], (uintptr_t)block(256));        /* a future: is_task 0 */
    cr_assert_eq(asyncio_task_chain(thread_running(c), &chain), 1);
    cr_expect_eq(chain.n, 1u);

    uint8_t *suspended = task("s", coro("fs", -1, NULL));
    cr_expect_eq(asyncio_task_chain(thread_running(suspended), &chain), 0);
    uint8_t *fake = task("f", coro("ff", 0, NULL));
    fake[section[3]] = 0;
    cr_expect_eq(asyncio_task_chain(thread_running(fake), &chain), 0);
    cr_expect_eq(asyncio_task_chain(thread_running(NULL), &chain), 0);
    /* a coroutine field that is not a coroutine */
    uint8_t *odd = task("o", block(512));
    cr_expect_eq(asyncio_task_chain(thread_running(odd), &chain), 0);
}

/* Offsets that do not fit a task are refused. */
Test(asyncio_tasks, implausible_section_offsets_are_refused)
{
    use();
    uint64_t bad[13];
    memcpy(bad, section, sizeof bad);
    bad[1] = 400;                                     /* name past the task */
    cr_expect_eq(asyncio_tasks_use(bad), 0);
    cr_expect_eq(asyncio_tasks_ready(), 0);
}

/* A thread's list of pending tasks (struct llist_node: next, prev; the
 * list ends back at its head): every task but the running one, in list
 * order; every stride-th from the phase-th; at most cap; the length as
 * read.  A pending task's chain: its own await stack first, then its
 * awaiter's. */
#define TASKS_HEAD 880
static void link_tasks(uint8_t *ts, uint8_t **tasks, int n)
{
    uintptr_t head = (uintptr_t)ts + TASKS_HEAD, prev = head;
    for (int i = 0; i < n; i++) {
        uintptr_t node = (uintptr_t)tasks[i] + section[6];
        put((uint8_t *)prev, 0, node);
        put((uint8_t *)node, 8, prev);
        prev = node;
    }
    put((uint8_t *)prev, 0, head);
    put(ts, TASKS_HEAD + 8, prev);
}

Test(asyncio_tasks, the_pending_tasks_of_a_loop_are_listed_and_read_where_they_wait)
{
    use();
    uint8_t future[64] = { 0 };
    put(future, L->ob_type, (uintptr_t)&future_type);
    uint8_t *t[6];
    uint8_t *outer = task(NULL, coro("main", -1, future));
    t[0] = outer;
    for (int i = 1; i < 6; i++)
        t[i] = task(i == 3 ? "runner" : "napper", i == 3 ? coro("work", 0, NULL)
                                                          : coro("nap", -1, coro("sleep", -1, future)));
    put(t[2], section[2], (uintptr_t)outer);
    uint8_t *ts = block(1024);
    put(ts, RUNNING_TASK, (uintptr_t)t[3]);
    link_tasks(ts, t, 6);
    uintptr_t got[8];
    unsigned total;
    unsigned n = asyncio_pending_tasks((uintptr_t)ts, 1, 0, got, 8, &total);
    cr_assert_eq(total, 6u);
    cr_assert_eq(n, 5u, "all but the running one: %u", n);
    cr_expect_eq(got[0], (uintptr_t)t[0]);
    cr_expect_eq(got[3], (uintptr_t)t[4]);
    n = asyncio_pending_tasks((uintptr_t)ts, 2, 1, got, 8, &total);
    cr_assert_eq(n, 2u, "places 1 and 5 (3 runs): %u", n);
    cr_expect_eq(got[0], (uintptr_t)t[1]);
    cr_expect_eq(got[1], (uintptr_t)t[5]);
    n = asyncio_pending_tasks((uintptr_t)ts, 1, 0, got, 2, &total);
    cr_expect_eq(n, 2u);
    cr_expect_eq(total, 6u);
    /* a pending task's chain: nap > sleep, then main's task awaiting it */
    cr_assert_eq(asyncio_waiting_chain((uintptr_t)t[2], &chain), 1);
    cr_assert_eq(chain.n, 2u);
    cr_expect_str_eq(chain.links[0].name, "napper");
    cr_assert_eq(chain.links[0].nframes, 2u);
    cr_expect_str_eq(chain.links[0].frames[0].code->name, "sleep");
    cr_expect_str_eq(chain.links[0].frames[1].code->name, "nap");
    cr_expect_str_eq(chain.links[1].name, "");
    cr_expect_eq(chain.links[1].nframes, 1u);
    /* the running task is not a waiting one */
    cr_expect_eq(asyncio_waiting_chain((uintptr_t)t[3], &chain), 0);
    /* a list that does not end (a torn read) stops at TASK_LIST_MAX */
    put(ts, TASKS_HEAD, (uintptr_t)t[1] + section[6]);
    put(t[1], section[6], (uintptr_t)t[1] + section[6]);
    n = asyncio_pending_tasks((uintptr_t)ts, 1, 0, got, 8, &total);
    cr_expect_eq(total, (unsigned)TASK_LIST_MAX);
    cr_expect_eq(n, 8u);
}
