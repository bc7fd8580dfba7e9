/*
 * harness.h — helpers for the integration tests: the interpreters to run,
 * a fresh output directory per test, running a command (with or without
 * the preload) under a timeout, running pyprof-merge, and reading what it
 * prints (collapsed lines, the JSON document of pyprof-merge(1), JSON).
 *
 * The tests find the build products through four variables that
 * `make check` exports (Makefile.am, AM_TESTS_ENVIRONMENT):
 * PYPROF_TEST_LIB, PYPROF_TEST_MERGE, PYPROF_TEST_RUN, PYPROF_TEST_SCRIPTS.
 *
 * Typical use:
 *
 *     PP_TEST(core, something_it_guarantees, .timeout = 60)
 *     {
 *         const char *dir = pp_tmpdir();
 *         struct pp_result run, rep;
 *         const char *args[] = { pp_script("burn.py"), "0.5", NULL };
 *         pp_run_python(&run, py, dir, 500, NULL, args);
 *         pp_expect_ok(py, &run, "burn.py");
 *         pp_merge(&rep, "collapsed", NULL, dir);
 *         struct pp_profile prof;
 *         pp_parse_collapsed(py, &rep, &prof);
 *         pp_assert(py, pp_count_leaf(&prof, "burn") > 100, "...");
 *     }
 *
 * Everything a helper allocates lives until the test process ends (each
 * criterion test runs in its own process); nothing needs freeing.
 */
#ifndef PYPROF_TEST_HARNESS_H
#define PYPROF_TEST_HARNESS_H

#include <stddef.h>
#include <sys/types.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

/* ------------------------------------------------------ interpreters */

/* One CPython to test with.  Plain arrays: criterion copies parameters
 * between processes. */
struct pp_python {
    char path[256];     /* as run: ~/.pyenv/versions/3.12.1/bin/python  */
    char version[32];   /* platform.python_version(): "3.12.1"          */
    int minor;          /* 12                                            */
    char label[320];    /* "3.12.1 /root/.pyenv/versions/3.12.1/bin/python",
                           prefixed to every assertion message          */
};

/* The parameter list for a ParameterizedTest: every
 * ~/.pyenv/versions/<v>/bin/python with 3.10 <= v, /usr/bin/python3.11
 * (Debian's static build), and $PYPROF_PYTHONS_CACHE/root/usr/bin/python3.14
 * and python3.15 (default cache /var/cache/pyprof-pythons; check.sh installs
 * them there).  An expected interpreter that is missing is named on stderr
 * as "SKIP: <path> not found", once per run of the binary. */
struct criterion_test_params pp_pythons(void);

/* A test run once per interpreter, with `py` (const struct pp_python *)
 * in scope:  PP_TEST(suite, what_it_guarantees, .timeout = 60) { ... } */
#define PP_TEST(suite, name, ...)                                          \
    ParameterizedTestParameters(suite, name) { return pp_pythons(); }      \
    ParameterizedTest(struct pp_python *py, suite, name, __VA_ARGS__)

/* Assertions that name the interpreter they failed on. */
#define pp_assert(py, cond, fmt, ...) \
    cr_assert((cond), "[%s] " fmt, (py)->label, ##__VA_ARGS__)
#define pp_expect(py, cond, fmt, ...) \
    cr_expect((cond), "[%s] " fmt, (py)->label, ##__VA_ARGS__)

/* Records a value a statistical test judges, with the limit it is judged
 * by (op is ">=" or "<="), for the campaigns that measure each test's
 * spread (README.md beside this file, "Statistical tests"): when
 * PP_TEST_MEASURES names a file, one tab-separated line is appended to it:
 * PP_TEST_MEASURE_TAG (the run's name in the campaign), suite::test, the
 * interpreter (py NULL: Debian's python3, as the server tests run), what,
 * value, op, limit.  Does nothing otherwise. */
void pp_measure(const struct pp_python *py, const char *what, double value,
                const char *op, double limit);

/* -------------------------------------------------------- processes */

/* What a finished command did. */
struct pp_result {
    char *out, *err;        /* stdout, stderr; NUL-terminated           */
    size_t out_len, err_len;
    int status;             /* raw wait status                          */
    int exited, code;       /* WIFEXITED, WEXITSTATUS                   */
    int signaled, sig;      /* WIFSIGNALED, WTERMSIG                    */
    int timed_out;          /* killed by the harness (process group)    */
    pid_t pid;
    double seconds;         /* wall time from fork to reap              */
};

/* Called every ~2 ms while a command runs (may be NULL). */
typedef void pp_poll_fn(void *arg, pid_t pid);

/* Runs argv[0] (searched in PATH) with stdin from /dev/null, in its own
 * process group, every signal at its default action and none blocked, and
 * collects its output.  The environment is the test's
 * own minus LD_PRELOAD and every PYPROF_* variable, plus
 * PYTHONDONTWRITEBYTECODE=1, then env[] applied in order: "NAME=value"
 * sets, "NAME" alone removes.  After timeout_s seconds the whole group is
 * killed with SIGKILL and timed_out is set.  Fails the test if the
 * command cannot be started at all. */
void pp_run(struct pp_result *r, const char *const argv[],
            const char *const env[], double timeout_s,
            pp_poll_fn *poll, void *poll_arg);

/* The environment additions for a profiled run: LD_PRELOAD=$PYPROF_TEST_LIB,
 * PYPROF_OUT=dir, PYPROF_HZ=hz (0: leave the default), then extra[]
 * (may be NULL).  Returns a NULL-terminated array for pp_run. */
const char *const *pp_profile_env(const char *dir, int hz,
                                  const char *const extra[]);

/* argv twice, as the tests that compare a program with itself under the
 * preload need it: without the preload into *plain, then profiled into
 * dir at hz (0: the default) into *pre. */
void pp_run_twice(struct pp_result *plain, struct pp_result *pre,
                  const char *const argv[], const char *dir, int hz,
                  double timeout_s);

/* py->path script args... (at most 5), run twice as pp_run_twice does
 * (both must exit 0); returns the number the profiled run printed after
 * "key ". */
double pp_run_measuring(const struct pp_python *py, const char *script,
                        const char *const args[], const char *dir, int hz,
                        const char *key);

/* py->path args... under the preload into dir, 60 s timeout. */
void pp_run_python(struct pp_result *r, const struct pp_python *py,
                   const char *dir, int hz, const char *const extra_env[],
                   const char *const args[]);

/* A program on PATH (its path, in a static buffer), or NULL. */
const char *pp_on_path(const char *name);

/* go tool pprof ARGS... file into *r (go's caches in a directory of the
 * test); fails the test unless it exits 0. */
void pp_go_pprof(const struct pp_python *py, struct pp_result *r,
                 const char *const args[], const char *file);

/* Fails the test (naming py, what, status and stderr) unless r exited 0. */
void pp_expect_ok(const struct pp_python *py, const struct pp_result *r,
                  const char *what);

/* The pid of the child a script names in its "child PID EXIT" line, its
 * exit code in *code; fails the test (naming script and what) if the
 * output has no such line. */
long pp_child_ended(const struct pp_python *py, const struct pp_result *r,
                    const char *script, const char *what, long *code);

/* "exit 3" / "signal 11 (Segmentation fault)" / "timed out" */
const char *pp_describe(const struct pp_result *r);

/* $PYPROF_TEST_MERGE --format FORMAT opts... input, 60 s timeout.  The
 * report is r->out; r->code is the exit status. */
void pp_merge(struct pp_result *r, const char *format,
              const char *const opts[], const char *input);

/* --------------------------------------------------------- files */

/* A fresh, empty directory under $TMPDIR (or /tmp) for this test.  It is
 * removed when the test process exits unless PYPROF_TEST_KEEP is set. */
const char *pp_tmpdir(void);

/* Entries of dir whose names end in suffix ("" counts everything). */
size_t pp_count_files(const char *dir, const char *suffix);

/* The path of the idx-th (in name order) entry of dir ending in suffix,
 * or NULL. */
const char *pp_find_file(const char *dir, const char *suffix, size_t idx);

/* Absolute path of a script in tests/py ($PYPROF_TEST_SCRIPTS). */
const char *pp_script(const char *name);

/* 1-based number of the first line of tests/py/<name> containing marker;
 * fails the test if there is none.  Scripts mark their lines with
 * comments such as "# HOT" so that tests do not hard-code line numbers. */
long pp_script_line(const char *name, const char *marker);

/* All the 1-based line numbers of tests/py/<name> containing marker;
 * returns how many (at most max). */
size_t pp_script_lines(const char *name, const char *marker, long *lines,
                       size_t max);

/* ------------------------------------------------ collapsed reports */

/* One line of `--format collapsed`: frames outermost first. */
struct pp_stack {
    char **frames;          /* "qualname (file:line)"                    */
    size_t depth;
    long count;
};

struct pp_profile {
    struct pp_stack *stacks;
    size_t n;
    long total;             /* sum of counts                             */
};

/* Parses r->out; fails the test (naming py and the line) on a malformed
 * line. */
void pp_parse_collapsed(const struct pp_python *py, const struct pp_result *r,
                        struct pp_profile *p);

/* 1 if frame is a frame of qualname: "qualname (...:N)". */
int pp_frame_is(const char *frame, const char *qualname);

/* Splits "qualname (file:line)": copies the file into file[size] and
 * returns the line, or -1 if the frame does not have that shape. */
long pp_frame_loc(const char *frame, char *file, size_t size);

/* Index of the first frame of qualname in s at or after from, or -1. */
long pp_stack_find(const struct pp_stack *s, const char *qualname,
                   size_t from);

/* Number of frames of qualname in s. */
size_t pp_stack_count(const struct pp_stack *s, const char *qualname);

/* Sum of the counts of the stacks that contain qualname ("total"). */
long pp_count_with(const struct pp_profile *p, const char *qualname);

/* 1 if frame is a C function's pseudo-frame (pyprof(7), "C calls"):
 * "<built-in method ...> (~:0)" or "<method '...' of '...' objects> (~:0)". */
int pp_frame_is_c_call(const char *frame);

/* The innermost Python frame of s: its innermost frame, or the one under
 * it where that is a C function the frame called (3.14+); "" if none. */
const char *pp_stack_leaf(const struct pp_stack *s);

/* Sum of the counts of the stacks whose innermost Python frame
 * (pp_stack_leaf) is qualname ("self" of the line's time). */
long pp_count_leaf(const struct pp_profile *p, const char *qualname);

/* Sum of the counts of the stacks whose innermost Python frame is
 * qualname at line `line`. */
long pp_count_leaf_line(const struct pp_profile *p, const char *qualname,
                        long line);

/* 1 if some stack has a frame of a outside (before) a frame of b. */
int pp_is_ancestor(const struct pp_profile *p, const char *a, const char *b);

/* The qualname with the largest self count (into name[size]); returns
 * that count, 0 for an empty profile. */
long pp_top_self(const struct pp_profile *p, char *name, size_t size);

/* ------------------------------------------------------------ JSON */

enum pp_json_type { PP_JNULL, PP_JBOOL, PP_JNUM, PP_JSTR, PP_JARR, PP_JOBJ };

struct pp_json {
    enum pp_json_type type;
    double num;             /* PP_JNUM; PP_JBOOL: 0 or 1                  */
    char *str;              /* PP_JSTR, NUL-terminated UTF-8              */
    size_t n;               /* PP_JARR, PP_JOBJ: members                  */
    struct pp_json *items;  /* PP_JARR, PP_JOBJ: values                   */
    char **keys;            /* PP_JOBJ: keys                              */
};

/* Parses r->out as one JSON document; fails the test (naming py and the
 * offset) if it is not one. */
const struct pp_json *pp_parse_json(const struct pp_python *py,
                                    const struct pp_result *r);

/* Parses text; NULL (and a message in err) if it is not one document. */
struct pp_json *pp_json_parse(const char *text, char *err, size_t errlen);

/* Member key of an object, element of an array by decimal index, or a
 * dotted path of both: pp_json_get(doc, "processes.0.threads").  NULL if
 * absent or if a step is of the wrong type. */
const struct pp_json *pp_json_get(const struct pp_json *j, const char *path);

/* The value at path as a number / string / array length; dflt, NULL or
 * (size_t)-1 when absent or of another type. */
double pp_json_num(const struct pp_json *j, const char *path, double dflt);
const char *pp_json_str(const struct pp_json *j, const char *path);
size_t pp_json_len(const struct pp_json *j, const char *path);

/* The first element of array j whose member key is the string value, or
 * NULL. */
const struct pp_json *pp_json_find(const struct pp_json *arr, const char *key,
                                   const char *value);

#endif /* PYPROF_TEST_HARNESS_H */
