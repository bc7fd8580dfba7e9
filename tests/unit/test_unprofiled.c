/*
 * test_unprofiled.c — the not-profiled record (pyprof(5)): what the
 * library writes reads back field by field, once per process image, with
 * control characters and over-long command lines kept to one bounded line;
 * records handed to the reader by anyone are checked (magic, size, required
 * fields, cut lines, NUL bytes) and control bytes never reach a report.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "record/not_profiled.h"
#include "pyprof/unprofiled.h"
#include "base/identity.h"
#include "unprofiled.h"

static const char *fresh_out_dir(void)
{
    static char dir[] = "/tmp/pyprof-unit.XXXXXX";
    strcpy(dir, "/tmp/pyprof-unit.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(pp_out_dir(), PATH_MAX, "%s/out", dir);
    pp_config.run_socket[0] = 0;
    pp_config.log_level = 0;
    return pp_out_dir();
}

Test(unprofiled, library_record_reads_back)
{
    char *argv[] = { "python3", "-c", "print('a')\nprint('b')", NULL };
    pp_state.argv = argv;
    snprintf(pp_state.inherited_parent, sizeof pp_state.inherited_parent,
             "00000000000000ab:3");
    const char *dir = fresh_out_dir();
    pp_not_profiled("cannot create %s: %s", "/x/y.zst", "Permission denied");
    pp_not_profiled("a second reason from the same image");
    struct unprofiled *u;
    size_t n;
    cr_assert_eq(unprofiled_scan(dir, "test", &u, &n), 0);
    cr_assert_eq(n, 1, "one record per image, found %zu", n);
    cr_expect_eq(u[0].pid, getpid());
    cr_expect_eq(u[0].user, (long)getuid());
    cr_expect_str_eq(u[0].parent, "00000000000000ab:3");
    cr_expect_str_eq(u[0].command, "python3 -c print('a') print('b')");
    cr_expect_str_eq(u[0].reason, "cannot create /x/y.zst: Permission denied");
    char what[1400];
    unprofiled_describe(&u[0], what, sizeof what);
    cr_expect(strstr(what, "pid ") == what && strstr(what, "): cannot create /x/y.zst"),
              "%s", what);
    free(u);
}

Test(unprofiled, long_command_leaves_room_for_the_reason)
{
    static char big[20000];
    memset(big, 'x', sizeof big - 1);
    char *argv[] = { "python3", big, NULL };
    pp_state.argv = argv;
    const char *dir = fresh_out_dir();
    pp_not_profiled("the reason");
    struct unprofiled *u;
    size_t n;
    cr_assert_eq(unprofiled_scan(dir, "test", &u, &n), 0);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(u[0].reason, "the reason");
    cr_expect(strncmp(u[0].command, "python3 xxx", 11) == 0);
    free(u);
}

static int parse(const char *text, struct unprofiled *u, char *err)
{
    return unprofiled_parse(text, strlen(text), u, err, 128);
}

Test(unprofiled, forged_records_are_refused_with_a_reason)
{
    struct unprofiled u;
    char err[128];
    const char *bad[] = {
        "",
        "pyprof-unprofiled 2\npid 1\nreason r\n",         /* other version */
        PP_UNPROF_MAGIC "pid 1\n",                        /* no reason */
        PP_UNPROF_MAGIC "reason r\n",                      /* no pid */
        PP_UNPROF_MAGIC "pid -4\nreason r\n",              /* bad pid */
        PP_UNPROF_MAGIC "pid 99999999999999999999999\nreason r\n",
        PP_UNPROF_MAGIC "pid 1\nreason r",                 /* cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        cr_expect_neq(parse(bad[i], &u, err), 0, "accepted case %zu", i);
        cr_expect(err[0], "no reason given for case %zu", i);
    }
    char nul[] = PP_UNPROF_MAGIC "pid 1\nreason a\0b\n";
    cr_expect_neq(unprofiled_parse(nul, sizeof nul - 1, &u, err, sizeof err), 0);
    static char huge[PP_UNPROF_MAX + 2];
    memset(huge, 'a', sizeof huge);
    memcpy(huge, PP_UNPROF_MAGIC, strlen(PP_UNPROF_MAGIC));
    cr_expect_neq(unprofiled_parse(huge, sizeof huge, &u, err, sizeof err), 0);
}

Test(unprofiled, unknown_keys_ignored_and_control_bytes_masked)
{
    struct unprofiled u;
    char err[128];
    cr_assert_eq(parse(PP_UNPROF_MAGIC "future thing\nnovalue\npid 7\n"
                       "command a\033[2Jb\nreason r\x7f\n", &u, err), 0, "%s", err);
    cr_expect_eq(u.pid, 7);
    cr_expect_eq(u.user, -1);
    cr_expect_str_eq(u.command, "a?[2Jb");
    cr_expect_str_eq(u.reason, "r?");
}

Test(unprofiled, a_fifo_or_device_with_a_record_name_is_not_read)
{
    char dir[] = "/tmp/pyprof-unit.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/1.unprofiled", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    struct unprofiled u;
    char err[128];
    cr_assert_eq(unprofiled_read(fifo, &u, err, sizeof err), -1);
    cr_assert_str_eq(err, "not a regular file");
    cr_assert_eq(unprofiled_read("/dev/null", &u, err, sizeof err), -1);
    cr_assert_str_eq(err, "not a regular file");
    unlink(fifo);
    rmdir(dir);
}

/* A process whose profile stopped being written: the record sent at the
 * failure (ticks lost not known) and the one sent when it ended both read
 * back with the image, the time and the error's name; the reader keeps the
 * last of them, and describes it with when and how much was lost. */
Test(unprofiled, a_stopped_writer_s_records_read_back_and_the_last_one_is_kept)
{
    char *argv[] = { "python3", "app.py", NULL };
    pp_state.argv = argv;
    pp_state.uid = 0x1b2c3d4e5f607182ULL;
    const char *dir = fresh_out_dir();
    mkdir(dir, 0700);
    const unsigned long long when = 1796040251001392117ULL;
    pp_stopped_writing("stopped writing /x/a.zst: No space left on device", ENOSPC,
                       when, -1);
    pp_stopped_writing("stopped writing /x/a.zst: No space left on device", ENOSPC,
                       when, 3653);
    pp_not_profiled("another image's reason");
    struct unprofiled *u;
    size_t n;
    cr_assert_eq(unprofiled_scan(dir, "test", &u, &n), 0);
    cr_assert_eq(n, 3, "three records, found %zu", n);
    size_t stopped = 0;
    for (size_t i = 0; i < n; i++) {
        if (!u[i].stopped_ns)
            continue;
        stopped++;
        cr_expect_str_eq(u[i].image, "1b2c3d4e5f607182");
        cr_expect_eq(u[i].stopped_ns, when);
        cr_expect_str_eq(u[i].err_name, "ENOSPC");
        cr_expect_str_eq(u[i].reason, "stopped writing /x/a.zst: No space left on device");
        cr_expect_str_eq(u[i].command, "python3 app.py");
        cr_expect(u[i].lost == -1 || u[i].lost == 3653, "lost %lld", u[i].lost);
    }
    cr_expect_eq(stopped, 2);
    unprofiled_dedupe(u, &n);
    cr_assert_eq(n, 2, "after dedupe %zu records, expected the stopped one and the other", n);
    const struct unprofiled *s = u[0].stopped_ns ? &u[0] : &u[1];
    cr_expect_eq(s->lost, 3653, "kept the record with lost %lld", s->lost);
    char what[1600];
    unprofiled_describe(s, what, sizeof what);
    cr_expect(strstr(what, "(python3 app.py): stopped writing /x/a.zst: No space left on "
                           "device (ENOSPC) at ") &&
              strstr(what, "UTC; 3653 ticks lost after it"), "%s", what);
    free(u);
}
