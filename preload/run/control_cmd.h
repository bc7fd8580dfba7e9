/*
 * control_cmd.h — pyprof-run's side of sampling on demand (pyprof-run(1),
 * --paused and --control): making a tree's control page, and starting or
 * stopping every process of the tree through it (pyprof/control.h).
 */
#ifndef PYPROF_RUN_CONTROL_CMD_H
#define PYPROF_RUN_CONTROL_CMD_H

/* Creates DIR/control, paused or sampling, into path[cap] (for
 * PYPROF_CONTROL), and maps it into *page (NULL: not wanted).  0, or -1
 * having said why on stderr. */
struct pp_control;
int control_create(const char *dir, int paused, char *path, size_t cap,
                   struct pp_control **page);

/* pyprof-run --control DIR ACTION [--for D]: args are ACTION and what
 * follows it.  Returns pyprof-run's exit status. */
int control_command(const char *dir, char **args, int nargs);

#endif
