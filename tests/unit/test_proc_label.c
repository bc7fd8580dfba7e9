/*
 * test_proc_label.c — what the reports call a process (model.h,
 * model_proc_label): the script, the module, the code, or the role
 * multiprocessing gave it, from command lines as CPython and
 * multiprocessing write them.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "model.h"
#include "pyprof/format.h"
#include "reader.h"

static const char *label_started(char **argv, int started_by)
{
    static struct rd_file f;
    static struct m_proc p;
    static char buf[256];
    memset(&f, 0, sizeof f);
    f.started_by = started_by;
    f.argv = argv;
    while (argv[f.argc])
        f.argc++;
    p.f = &f;
    model_proc_label(&p, buf, sizeof buf);
    return buf;
}

static const char *label_of(char **argv)
{
    return label_started(argv, PP_START_SPAWN);
}

Test(proc_label, a_script_with_its_arguments)
{
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "-u", "-X", "dev",
                                          "/srv/app/manage.py", "runserver", "8000", NULL }),
                     "manage.py runserver 8000");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "/usr/bin/gunicorn",
                                          "app:app", NULL }), "gunicorn app:app");
}

Test(proc_label, a_module_and_code)
{
    cr_expect_str_eq(label_of((char *[]){ "python3.12", "-m", "pytest", "-x", NULL }),
                     "-m pytest -x");
    cr_expect_str_eq(label_of((char *[]){ "python3", "-c", "import sys\nprint(1)", NULL }),
                     "-c import sys\xe2\x80\xa6");
}

Test(proc_label, the_roles_multiprocessing_gives)
{
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "-c",
        "from multiprocessing.forkserver import main; main(8, 9, ['__main__'], "
        "**{'sys_path': ['/x']})", NULL }), "multiprocessing forkserver");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "-c",
        "from multiprocessing.resource_tracker import main;main(5)", NULL }),
        "multiprocessing resource_tracker");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "-B", "-s", "-c",
        "from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=6, "
        "pipe_handle=8)", "--multiprocessing-fork", NULL }),
        "multiprocessing spawn_main");
    /* the forkserver's fork children, the pool's workers, have its
     * command line */
    cr_expect_str_eq(label_started((char *[]){ "/usr/bin/python3", "-c",
        "from multiprocessing.forkserver import main; main(8, 9, ['__main__'])", NULL },
        PP_START_FORK), "multiprocessing forkserver worker");
}

Test(proc_label, other_programs_and_odd_lines)
{
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/uwsgi", "--ini", "app.ini", NULL }),
                     "uwsgi --ini app.ini");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", NULL }), "python3");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "-W", NULL }), "python3");
    cr_expect_str_eq(label_of((char *[]){ NULL }), "?");
    cr_expect_str_eq(label_of((char *[]){ "python3", "/tmp/a\tb.py", NULL }), "a\\tb.py");
    /* a long line is cut, and says so */
    char longarg[300];
    memset(longarg, 'x', sizeof longarg - 1);
    longarg[sizeof longarg - 1] = 0;
    const char *l = label_of((char *[]){ "python3", "app.py", longarg, NULL });
    cr_expect_lt(strlen(l), 110u);
    cr_expect(strstr(l, "app.py xxx") == l && strstr(l, "\xe2\x80\xa6"), "%s", l);
}

/* A title written over the command line's memory before the file was
 * made is the header's argv: the title, then the empty arguments left of
 * the others, which leave no trailing spaces. */
Test(proc_label, a_title_over_the_command_line_leaves_no_trailing_spaces)
{
    cr_expect_str_eq(label_started((char *[]){ "prefork worker 1 [labelled]", "", "",
                                               NULL }, PP_START_FORK),
                     "prefork worker 1 [labelled]");
    cr_expect_str_eq(label_of((char *[]){ "/usr/bin/python3", "app.py", "", "x", "", NULL }),
                     "app.py  x");
}
