/*
 * test_config.c — the PYPROF_* environment read once at start-up
 * (pyprof(7), ENVIRONMENT): every variable reaches pp_config, a bad value
 * gives the default and one message, and a relative PYPROF_OUT is made
 * absolute against the directory the process started in.  Each test runs
 * in its own process, so setenv() and chdir() stay inside it.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "pyprof/unprofiled.h"

static const char *const all_vars[] = {
    "PYPROF_OUT", "PYPROF_HZ", "PYPROF_FOLLOW", "PYPROF_FLUSH_MS", "PYPROF_ONLY",
    "PYPROF_LOG", "PYPROF_LOG_FILE", PP_ENV_RUN_SOCKET,
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof all_vars / sizeof *all_vars; i++)
        unsetenv(all_vars[i]);
    memset(&pp_config, 0, sizeof pp_config);
}

/* A fresh PYPROF_LOG_FILE with PYPROF_LOG=1, so that messages are kept. */
static char log_path[64];
static void log_to_file(void)
{
    strcpy(log_path, "/tmp/pyprof-config.XXXXXX");
    int fd = mkstemp(log_path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("PYPROF_LOG_FILE", log_path, 1);
    setenv("PYPROF_LOG", "1", 1);
}

/* The lines the load wrote to the log file; the first one into first. */
static int log_lines(char *first, size_t cap)
{
    FILE *f = fopen(log_path, "r");
    cr_assert_not_null(f);
    char line[2048];
    int n = 0;
    first[0] = 0;
    while (fgets(line, sizeof line, f))
        if (n++ == 0)
            snprintf(first, cap, "%s", line);
    fclose(f);
    unlink(log_path);
    return n;
}

Test(config, defaults_without_any_variable)
{
    clear_env();
    char cwd[PATH_MAX], want[PATH_MAX + 16];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/pyprof.out", strcmp(cwd, "/") ? cwd : "");
    pp_config_init();
    cr_assert_eq(pp_config.hz, PP_DEFAULT_HZ);
    cr_assert_eq(pp_config.follow, 1);
    cr_assert_eq(pp_config.flush_ms, PP_DEFAULT_FLUSH_MS);
    cr_assert_eq(pp_config.log_level, 0);
    cr_assert_str_empty(pp_config.only);
    cr_assert_str_empty(pp_config.log_file);
    cr_assert_str_empty(pp_config.run_socket);
    cr_assert_str_eq(pp_out_dir(), want);
}

Test(config, every_variable_reaches_pp_config)
{
    clear_env();
    setenv("PYPROF_OUT", "/srv/profiles", 1);
    setenv("PYPROF_HZ", "250", 1);
    setenv("PYPROF_FOLLOW", "0", 1);
    setenv("PYPROF_FLUSH_MS", "50", 1);
    setenv("PYPROF_ONLY", "*worker*", 1);
    setenv("PYPROF_LOG", "2", 1);
    setenv("PYPROF_LOG_FILE", "/tmp/pyprof-config-unused.log", 1);
    setenv(PP_ENV_RUN_SOCKET, "@pyprof-run-42", 1);
    pp_config_init();
    cr_assert_str_eq(pp_out_dir(), "/srv/profiles");
    cr_assert_eq(pp_config.hz, 250);
    cr_assert_eq(pp_config.follow, 0);
    cr_assert_eq(pp_config.flush_ms, 50);
    cr_assert_str_eq(pp_config.only, "*worker*");
    cr_assert_eq(pp_config.log_level, 2);
    cr_assert_str_eq(pp_config.log_file, "/tmp/pyprof-config-unused.log");
    cr_assert_str_eq(pp_config.run_socket, "@pyprof-run-42");
}

Test(config, limits_of_the_numbers_are_accepted)
{
    clear_env();
    setenv("PYPROF_HZ", "200000", 1);
    setenv("PYPROF_FLUSH_MS", "60000", 1);
    pp_config_init();
    cr_assert_eq(pp_config.hz, PP_MAX_HZ);
    cr_assert_eq(pp_config.flush_ms, 60000);
    setenv("PYPROF_HZ", "1", 1);
    setenv("PYPROF_FLUSH_MS", "1", 1);
    pp_config_init();
    cr_assert_eq(pp_config.hz, 1);
    cr_assert_eq(pp_config.flush_ms, 1);
}

/* Each bad value, alone: the default, and one message naming the variable
 * and what was typed. */
Test(config, bad_numbers_give_the_default_and_one_message)
{
    static const struct { const char *var, *value; } bad[] = {
        { "PYPROF_HZ", "0" }, { "PYPROF_HZ", "200001" }, { "PYPROF_HZ", "fast" },
        { "PYPROF_HZ", "-5" }, { "PYPROF_HZ", "10x" }, { "PYPROF_HZ", "" },
        { "PYPROF_HZ", "99999999999999999999" },
        { "PYPROF_FLUSH_MS", "0" }, { "PYPROF_FLUSH_MS", "60001" },
        { "PYPROF_FLUSH_MS", "5ms" },
        { "PYPROF_FOLLOW", "2" }, { "PYPROF_FOLLOW", "yes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        clear_env();
        log_to_file();
        setenv(bad[i].var, bad[i].value, 1);
        pp_config_init();
        cr_assert_eq(pp_config.hz, PP_DEFAULT_HZ, "%s=%s", bad[i].var, bad[i].value);
        cr_assert_eq(pp_config.flush_ms, PP_DEFAULT_FLUSH_MS, "%s=%s", bad[i].var,
                     bad[i].value);
        cr_assert_eq(pp_config.follow, 1, "%s=%s", bad[i].var, bad[i].value);
        char first[2048], want[256];
        cr_assert_eq(log_lines(first, sizeof first), 1, "%s=%s", bad[i].var,
                     bad[i].value);
        snprintf(want, sizeof want, "%s=%s is not a number", bad[i].var, bad[i].value);
        cr_assert_not_null(strstr(first, want), "message: %s", first);
    }
}

/* A bad PYPROF_LOG gives its default: errors when a log file was asked
 * for, nothing otherwise. */
Test(config, bad_log_level_gives_its_default)
{
    clear_env();
    setenv("PYPROF_LOG", "3", 1);
    pp_config_init();
    cr_assert_eq(pp_config.log_level, 0);
    clear_env();
    log_to_file();
    setenv("PYPROF_LOG", "loud", 1);
    pp_config_init();
    cr_assert_eq(pp_config.log_level, 1);
    /* Said once, however often a Python is found (pyprof(7), PYPROF_LOG). */
    pp_config_report_bad_log();
    pp_config_report_bad_log();
    char first[2048];
    cr_assert_eq(log_lines(first, sizeof first), 1);
    cr_assert_not_null(strstr(first, "]: PYPROF_LOG=loud is not 0, 1 or 2; using 1\n"),
                       "message: %s", first);
}

Test(config, over_long_strings_are_ignored_with_one_message)
{
    clear_env();
    log_to_file();
    char only[sizeof pp_config.only + 1];
    memset(only, 'x', sizeof only - 1);
    only[sizeof only - 1] = 0;
    setenv("PYPROF_ONLY", only, 1);
    pp_config_init();
    cr_assert_str_empty(pp_config.only);
    char first[2048];
    cr_assert_eq(log_lines(first, sizeof first), 1);
    cr_assert_not_null(strstr(first, "PYPROF_ONLY is longer than"), "message: %s",
                       first);

    /* one byte less fits */
    clear_env();
    only[sizeof only - 2] = 0;
    setenv("PYPROF_ONLY", only, 1);
    pp_config_init();
    cr_assert_str_eq(pp_config.only, only);
}

Test(config, relative_out_is_made_absolute_against_the_cwd)
{
    clear_env();
    char dir[] = "/tmp/pyprof-config.XXXXXX", cwd[PATH_MAX], want[PATH_MAX + 32];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    setenv("PYPROF_OUT", "runs/today", 1);
    pp_config_init();
    snprintf(want, sizeof want, "%s/runs/today", cwd);
    cr_assert_str_eq(pp_out_dir(), want);
    cr_assert_eq(chdir("/"), 0);
    rmdir(dir);

    /* at the root: no doubled slash */
    pp_config_init();
    cr_assert_str_eq(pp_out_dir(), "/runs/today");
}

Test(config, parse_uint_takes_plain_decimals_in_range_only)
{
    unsigned v = 7;
    cr_assert_eq(config_parse_uint("42", 1, 100, &v), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(config_parse_uint("100", 1, 100, &v), 0);
    cr_assert_eq(v, 100);
    const char *bad[] = { NULL, "", "0", "101", "-1", "4 2", "42 ", "0x10", "1e3" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = 7;
        cr_assert_neq(config_parse_uint(bad[i], 1, 100, &v), 0, "accepted %s",
                      bad[i] ? bad[i] : "NULL");
        cr_assert_eq(v, 7);
    }
}
