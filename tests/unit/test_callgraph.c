/*
 * test_callgraph.c — the stack checker the stack-fidelity integration test
 * relies on (tests/integration/callgraph.h): a true stack passes, and each
 * kind of impossible stack planted by hand is caught with its own rule.
 */
#include <criterion/criterion.h>

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
    "call <module> 60 worker\n";

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
