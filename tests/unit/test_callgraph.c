/*
 * test_callgraph.c — the stack checker the stack-fidelity integration test
 * relies on (tests/integration/callgraph.h): a true stack passes, and each
 * kind of impossible stack planted by hand is caught with its own rule.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../integration/callgraph.h"

/* A miniature of what tests/py/stackstorm.py prints. */
static const char graph[] =
    "file /t/p.py\n"
    "entry <module>\n"
    "entry worker\n"
    "func fib 10 11 called\n"
    "func numbers 20 24 resumed\n"
    "func evens 30 33 resumed\n"
    "func pipeline 40 45 called\n"
    "func worker 50 53 called\n"
    "call fib 11 fib\n"
    "call numbers 22 fib\n"
    "resume evens 31 numbers\n"
    "resume pipeline 42 evens\n"
    "call pipeline 44 fib\n"
    "call worker 52 pipeline\n"
    "call <module> 60 worker\n"
    "ccall pipeline 42\n"
    "ccall pipeline 43\n";

static struct callgraph *g;

static void setup(void)
{
    char err[256];
    g = cg_parse(graph, err, sizeof err);
    cr_assert(g, "%s", err);
}

static void teardown(void) { cg_free(g); }

TestSuite(callgraph, .init = setup, .fini = teardown);

#define CHECK(expect, at_expect, ...)                                        \
    do {                                                                     \
        const char *const fr[] = { __VA_ARGS__ };                            \
        size_t at;                                                           \
        enum cg_verdict v = cg_check(g, fr, sizeof fr / sizeof *fr, &at);    \
        cr_expect_eq(v, expect, "got \"%s\", want \"%s\"",                   \
                     cg_verdict_name(v), cg_verdict_name(expect));           \
        if (v == expect && v != CG_OK)                                       \
            cr_expect_eq(at, (size_t)(at_expect), "at frame %zu", at);       \
    } while (0)

Test(callgraph, true_stacks_pass)
{
    CHECK(CG_OK, 0, "<module> (/t/p.py:60)", "worker (/t/p.py:52)",
          "pipeline (/t/p.py:42)", "evens (/t/p.py:31)",
          "numbers (/t/p.py:22)", "fib (/t/p.py:11)", "fib (/t/p.py:10)");
    CHECK(CG_OK, 0, "worker (/t/p.py:52)", "pipeline (/t/p.py:44)",
          "fib (/t/p.py:11)");
    CHECK(CG_OK, 0, "<module> (/t/p.py:1)");
    CHECK(CG_OK, 0, "worker (/t/p.py:52)", "pipeline (/t/p.py:-1)");
    /* the interpreter's start-up, run from C */
    CHECK(CG_OK, 0, "zipimporter.__init__ (<frozen zipimport>:94)",
          "_read_directory (<frozen zipimport>:411)");
    /* and its finalization, run from C after the program's last frame */
    CHECK(CG_OK, 0, "_shutdown (/usr/lib/python3.11/threading.py:1563)",
          "Thread._stop (/usr/lib/python3.11/threading.py:1069)");
    CHECK(CG_OK, 0, "shutdown (/usr/lib/python3.11/logging/__init__.py:2192)",
          "StreamHandler.flush (/usr/lib/python3.11/logging/__init__.py:1093)");
}

Test(callgraph, finalization_holds_no_frame_of_the_program)
{
    /* the program's function under an exit-time entry, or that entry's
     * name in another file, is not the interpreter's finalization */
    CHECK(CG_FOREIGN, 0, "_shutdown (/usr/lib/python3.11/threading.py:1563)",
          "fib (/t/p.py:11)");
    CHECK(CG_FOREIGN, 0, "_shutdown (/t/mythreading.py:3)");
    CHECK(CG_FOREIGN, 0, "shutdown (/usr/lib/python3.11/threading.py:9)");
}

Test(callgraph, a_chain_cut_in_the_middle_is_not_at_a_thread_entry)
{
    CHECK(CG_NOT_ENTRY, 0, "pipeline (/t/p.py:44)", "fib (/t/p.py:11)");
    CHECK(CG_NOT_ENTRY, 0, "fib (/t/p.py:11)", "fib (/t/p.py:10)");
}

/* pyprof-merge's root for a stack deeper than the sampler keeps: the
 * frame under it may be any function, and the rest is checked as ever. */
Test(callgraph, a_truncated_stack_is_checked_below_its_cut)
{
    CHECK(CG_OK, 0, "<truncated> (~:0)", "fib (/t/p.py:11)", "fib (/t/p.py:10)");
    CHECK(CG_OK, 0, "<truncated> (~:0)", "pipeline (/t/p.py:42)",
          "evens (/t/p.py:31)");
    CHECK(CG_NOT_CALLED, 2, "<truncated> (~:0)", "pipeline (/t/p.py:43)",
          "fib (/t/p.py:11)");
    CHECK(CG_EMPTY, 0, "<truncated> (~:0)");
}

/* <GC> on top: the frame under it is taken as the innermost, which need
 * not stand at a call; <GC> anywhere else is a foreign frame. */
Test(callgraph, the_collector_on_top_is_checked_below_it)
{
    CHECK(CG_OK, 0, "<module> (/t/p.py:60)", "worker (/t/p.py:52)",
          "pipeline (/t/p.py:43)", "<GC> (~:0)");
    CHECK(CG_NOT_CALLED, 2, "<module> (/t/p.py:60)", "worker (/t/p.py:52)",
          "fib (/t/p.py:10)", "<GC> (~:0)");
    CHECK(CG_FOREIGN, 1, "<module> (/t/p.py:60)", "<GC> (~:0)",
          "worker (/t/p.py:52)");
    CHECK(CG_EMPTY, 0, "<GC> (~:0)");
}

Test(callgraph, a_caller_on_a_line_that_does_not_call_its_callee)
{
    /* pipeline read before or after its call: line 43 calls nothing. */
    CHECK(CG_NOT_CALLED, 2, "worker (/t/p.py:52)", "pipeline (/t/p.py:43)",
          "fib (/t/p.py:11)");
    /* The right line, the wrong callee. */
    CHECK(CG_NOT_CALLED, 2, "<module> (/t/p.py:60)", "worker (/t/p.py:52)",
          "fib (/t/p.py:10)");
    /* A frame of one moment under the caller of another. */
    CHECK(CG_NOT_CALLED, 1, "<module> (/t/p.py:60)", "pipeline (/t/p.py:44)");
}

Test(callgraph, a_generator_under_a_frame_that_does_not_resume_it)
{
    /* pipeline's line 44 calls fib, it does not resume evens. */
    CHECK(CG_NOT_RESUMED, 2, "worker (/t/p.py:52)", "pipeline (/t/p.py:44)",
          "evens (/t/p.py:31)");
    /* A generator straight under the thread's entry line that calls. */
    CHECK(CG_NOT_RESUMED, 1, "worker (/t/p.py:52)", "numbers (/t/p.py:22)");
}

/* A C function stands on a line that calls one, innermost or between
 * its caller and the generator it resumed; it is passed over otherwise. */
Test(callgraph, a_c_function_stands_on_a_line_that_calls_one)
{
    CHECK(CG_OK, 0, "worker (/t/p.py:52)", "pipeline (/t/p.py:43)",
          "<built-in method time.sleep> (~:0)");
    CHECK(CG_OK, 0, "worker (/t/p.py:52)", "pipeline (/t/p.py:42)",
          "<built-in method builtins.next> (~:0)", "evens (/t/p.py:31)");
    CHECK(CG_OK, 0, "worker (/t/p.py:52)", "pipeline (/t/p.py:43)",
          "<method 'join' of 'str' objects> (~:0)", "<GC> (~:0)");
    /* line 44 calls only fib */
    CHECK(CG_NOT_C_CALL, 2, "worker (/t/p.py:52)", "pipeline (/t/p.py:44)",
          "<built-in method time.sleep> (~:0)");
    /* the generator must still be one the line resumes */
    CHECK(CG_NOT_RESUMED, 3, "worker (/t/p.py:52)", "pipeline (/t/p.py:43)",
          "<built-in method builtins.next> (~:0)", "evens (/t/p.py:31)");
    CHECK(CG_NOT_C_CALL, 0, "<built-in method time.sleep> (~:0)");
}

/* A miniature of tests/py/async_tasks.py's graph. */
static const char async_graph[] =
    "file /t/a.py\n"
    "entry <module>\n"
    "func burn 1 5 called\n"
    "func worker 10 14 resumed\n"
    "func main 20 30 resumed\n"
    "awaits worker 13\n"
    "awaits main 22\n"
    "awaits main 25\n"
    "task main <task>\n"
    "task worker <task worker-a>\n"
    "call worker 12 burn\n"
    "ccall <module> 40\n"
    "ccall burn 3\n";

Test(callgraph, tasks_stand_over_the_loop_or_an_await_and_run_their_function)
{
    char err[256];
    struct callgraph *a = cg_parse(async_graph, err, sizeof err);
    cr_assert(a, "%s", err);
    struct callgraph *keep = g;
    g = a;
    /* the loop, the main task at its await, the worker's task */
    CHECK(CG_OK, 0, "<module> (/t/a.py:40)", "run (/usr/lib/asyncio/runners.py:5)",
          "Handle._run (/usr/lib/asyncio/events.py:9)",
          "<method 'run' of '_contextvars.Context' objects> (~:0)", "<task> (~:0)",
          "main (/t/a.py:22)", "<task worker-a> (~:0)", "worker (/t/a.py:12)",
          "burn (/t/a.py:3)", "<built-in method time.perf_counter> (~:0)");
    /* what an await runs, then the task it waits on */
    CHECK(CG_OK, 0, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "<task> (~:0)", "main (/t/a.py:25)",
          "TaskGroup.__aexit__ (/usr/lib/asyncio/taskgroups.py:70)",
          "<task worker-a> (~:0)", "worker (/t/a.py:12)");
    /* a task's function run by the loop where the task was not read */
    CHECK(CG_OK, 0, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "worker (/t/a.py:12)", "burn (/t/a.py:2)");
    /* a task above a line that does not await */
    CHECK(CG_NOT_TASK, 6, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "<task> (~:0)", "main (/t/a.py:22)", "<task worker-a> (~:0)",
          "worker (/t/a.py:12)", "<task> (~:0)");
    /* a task running another function */
    CHECK(CG_NOT_TASK, 3, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "<task worker-a> (~:0)", "main (/t/a.py:22)");
    /* the loop running a function that is no task's */
    CHECK(CG_NOT_TASK, 2, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "burn (/t/a.py:2)");
    /* another file's frame above a line that neither calls nor awaits */
    CHECK(CG_FOREIGN, 5, "<module> (/t/a.py:40)", "Handle._run (/usr/lib/asyncio/events.py:9)",
          "<task worker-a> (~:0)", "worker (/t/a.py:12)", "burn (/t/a.py:2)",
          "helper (/usr/lib/x.py:1)");
    g = keep;
    cg_free(a);
}

Test(callgraph, frames_of_other_files_functions_or_lines_are_caught)
{
    CHECK(CG_FOREIGN, 1, "<module> (/t/p.py:60)", "worker (/t/q.py:52)");
    CHECK(CG_FOREIGN, 1, "<module> (/t/p.py:60)", "helper (/t/p.py:52)");
    CHECK(CG_FOREIGN, 1, "<module> (/t/p.py:60)",
          "_find_and_load (<frozen importlib._bootstrap>:1)");
    CHECK(CG_FOREIGN, 0, "_find_and_load (<frozen importlib._bootstrap>:1)",
          "worker (/t/p.py:52)");
    CHECK(CG_LINE_OUTSIDE, 2, "<module> (/t/p.py:60)", "worker (/t/p.py:52)",
          "pipeline (/t/p.py:99)");
    CHECK(CG_LINE_OUTSIDE, 1, "<module> (/t/p.py:60)", "worker (/t/p.py:-1)",
          "pipeline (/t/p.py:44)");
    CHECK(CG_BAD_FRAME, 1, "<module> (/t/p.py:60)", "worker /t/p.py:52");
    CHECK(CG_NOT_CALLED, 1, "<module> (/t/p.py:60)", "<module> (/t/p.py:60)");
    size_t at;
    cr_expect_eq(cg_check(g, NULL, 0, &at), CG_EMPTY);
}

Test(callgraph, a_malformed_graph_is_refused_with_its_line)
{
    char err[256];
    cr_expect_null(cg_parse("file /x.py\nentry m\ncall a b c\n", err, sizeof err));
    cr_expect(strstr(err, "line 3"), "%s", err);
    cr_expect_null(cg_parse("func f 1 2 called\n", err, sizeof err));
}

Test(callgraph, a_refused_stack_is_described_in_one_line_cut_to_its_buffer)
{
    const char *const fr[] = { "_shutdown (/t/threading.py:1)", "fib (/t/p.py:11)" };
    char buf[128], small[24];
    cg_describe(CG_FOREIGN, 0, fr, 2, buf, sizeof buf);
    cr_expect_str_eq(buf, "frame of another file or an unknown function at frame 0: "
                          "_shutdown (/t/threading.py:1) > fib (/t/p.py:11)");
    cg_describe(CG_FOREIGN, 0, fr, 2, small, sizeof small);
    cr_expect_eq(strlen(small), sizeof small - 1, "cut to the buffer: %s", small);
}
