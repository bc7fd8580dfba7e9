/*
 * test_servers.c — the servers people deploy Python on, from Debian's
 * packages, run under pyprof-run as users run them: every Python process
 * of the tree in the report, the hot function in the processes that ran
 * it about as often as they ran it, the job's own results and exit status
 * as without pyprof, and nothing left running.
 *
 * uWSGI (uwsgi-plugin-python3, Debian's Python): a master and 2 workers
 * forked from C without CPython's fork handling (pyprof(7), Fork).  Celery
 * (prefork, a Redis the driver starts on loopback), uvicorn --workers 2, a
 * Dask LocalCluster, gevent monkey-patched with a subprocess, and joblib's
 * loky.  All driven by tests/py/server_drive.py, which counts the processes
 * that ran hot and how long each spent in it by its own clock, and the
 * tree's Python processes from /proc, so that "every process is in the
 * report" does not take pyprof's word for the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 400

struct drive {
    char results[256];
    long master, status, left;
    int hung;
    size_t n;
    struct { long pid, requests; double secs; } served[16];
    size_t npy;
    long python[32];
};

static void parse_drive(const char *out, struct drive *d)
{
    memset(d, 0, sizeof *d);
    d->master = d->status = d->left = -1;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, "results ", 8))
            snprintf(d->results, sizeof d->results, "%.*s",
                     (int)strcspn(p + 8, "\n"), p + 8);
        else if (d->n < 16 && sscanf(p, "served %ld %ld %lf", &d->served[d->n].pid,
                                     &d->served[d->n].requests,
                                     &d->served[d->n].secs) == 3)
            d->n++;
        if (d->npy < 32 && sscanf(p, "python %ld", &d->python[d->npy]) == 1)
            d->npy++;
        sscanf(p, "master %ld", &d->master);
        sscanf(p, "status %ld", &d->status);
        sscanf(p, "left %ld", &d->left);
        if (!strncmp(p, "hung", 4))
            d->hung = 1;
    }
}

/* Runs server_drive.py for server, plainly (dir NULL) or under pyprof-run
 * writing to dir; at least workers processes must run hot.
 * uWSGI spreads requests over both workers, mostly: on a busy machine
 * one may take all 41 (a campaign run of 2026-11-29 beside builds and a
 * fuzzer), as a pool may give all its work to the worker that started
 * first; each that served is checked, the others as processes of the
 * tree (server()). */
static void drive(struct drive *d, const char *server, int port, const char *dir,
                  size_t workers)
{
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    char hz[16];
    snprintf(hz, sizeof hz, "%d", HZ);
    const char *tmp = pp_tmpdir();
    const char *plain[] = { "/usr/bin/python3", pp_script("server_drive.py"),
                            server, portstr, tmp, NULL };
    const char *pre[] = { "/usr/bin/python3", pp_script("server_drive.py"), server,
                          portstr, tmp, getenv("PYPROF_TEST_RUN"), "-q", "-o", dir,
                          "-r", hz, "--", NULL };
    struct pp_result r;
    pp_run(&r, dir ? pre : plain, NULL, 240, NULL, NULL);
    cr_assert(r.exited && r.code == 0, "%s%s: %s\n%s%s", server,
              dir ? " under pyprof-run" : "", pp_describe(&r), r.out, r.err);
    parse_drive(r.out, d);
    cr_assert(d->n >= workers && d->results[0],
              "%s: fewer than %zu processes did the work; the driver printed:\n%s",
              server, workers, r.out);
}

/* What every server test checks of a plain run and a run under pyprof-run
 * of the same job: the same results and exit status, no hang, nothing
 * left running, and each process that ran hot present, complete and with
 * samples of hot for about the time its own clock gave it. */
static const struct pp_json *compare(const char *name, const struct drive *plain,
                                     const struct drive *pre, const char *dir)
{
    cr_expect(!plain->hung && !pre->hung, "%s did not stop when told to "
              "(plainly: %s, under pyprof-run: %s)", name,
              plain->hung ? "hung" : "stopped", pre->hung ? "hung" : "stopped");
    cr_expect(!strcmp(plain->results, pre->results), "%s: results %s plainly, "
              "%s under pyprof-run", name, plain->results, pre->results);
    cr_expect(plain->status == pre->status, "%s: exit status %ld plainly, %ld "
              "under pyprof-run", name, plain->status, pre->status);
    cr_expect(pre->left == 0 && plain->left == 0, "%s: %ld processes left "
              "running under pyprof-run (%ld plainly)", name, pre->left, plain->left);

    static const struct pp_python debian = {
        .path = "/usr/bin/python3", .label = "Debian's python3" };
    const struct pp_json *doc = pp_json_report(&debian, dir, "wall", 0);
    for (size_t i = 0; i < pre->n; i++) {
        long pid = pre->served[i].pid;
        const struct pp_json *p = pp_json_process(doc, pid, NULL);
        cr_expect(p != NULL, "%s: process %ld, which ran hot %ld times, is not "
                  "in the report", name, pid, pre->served[i].requests);
        if (!p)
            continue;
        const struct pp_json *c = pp_json_get(p, "complete");
        cr_expect(c && c->type == PP_JBOOL && c->num == 1,
                  "%s: process %ld's file is incomplete", name, pid);
        /* hot's samples against the time the process's own clock gave it:
         * a worker whose requests all went unsampled has 0 (every uWSGI
         * worker, before the fork fix). */
        double want = pre->served[i].secs * HZ;
        double n = pp_json_samples_in(doc, pid, "hot");
        fprintf(stderr, "%s: process %ld ran hot %ld times, %.3f s: %.0f samples "
                "of hot (%.0f at %d Hz)\n", name, pid, pre->served[i].requests,
                pre->served[i].secs, n, want, HZ);
        if (want >= 20) {
            pp_measure(NULL, "hot's samples against its time", n / want, ">=", 0.6);
            cr_expect(n >= 0.6 * want, "%s: process %ld spent %.3f s in hot "
                      "but has %.0f samples of it at %d Hz", name, pid,
                      pre->served[i].secs, n, HZ);
        }
    }
    return doc;
}

static void uwsgi_mode(const char *mode, int port_offset)
{
    if (access("/usr/bin/uwsgi", X_OK) != 0 ||
        access("/usr/lib/uwsgi/plugins/python3_plugin.so", F_OK) != 0) {
        fprintf(stderr, "SKIP: uwsgi %s: uwsgi-plugin-python3 is not installed "
                "(.ci/deps installs it)\n", mode);
        return;
    }
    int port = 20000 + (int)(getpid() % 20000) + port_offset;
    char name[64];
    snprintf(name, sizeof name, "uwsgi-%s", mode);
    struct drive plain, pre;
    drive(&plain, name, port, NULL, 1);
    const char *dir = pp_tmpdir();
    drive(&pre, name, port, dir, 1);
    const struct pp_json *doc = compare(name, &plain, &pre, dir);
    cr_expect(pp_json_process(doc, pre.master, NULL) != NULL,
              "uwsgi %s: the master %ld is not in the report", mode, pre.master);
    for (size_t i = 0; i < pre.n; i++)
        cr_expect(pp_json_process(doc, pre.served[i].pid, "fork") != NULL,
                  "uwsgi %s: worker %ld is not in the report as a fork child",
                  mode, pre.served[i].pid);
}

Test(servers, uwsgi_workers_are_profiled, .timeout = 300)
{
    uwsgi_mode("default", 0);
}

Test(servers, uwsgi_lazy_apps_workers_are_profiled, .timeout = 300)
{
    uwsgi_mode("lazy", 1);
}

Test(servers, uwsgi_threaded_workers_are_profiled, .timeout = 300)
{
    uwsgi_mode("threads", 2);
}

Test(servers, uwsgi_workers_respawned_by_a_reload_are_profiled, .timeout = 300)
{
    uwsgi_mode("reload", 3);
}

/* Whether Debian's python3 imports modules (an import list: "a, b") and
 * each program in programs (space separated) is in /usr/bin; prints SKIP
 * if not. */
static int have(const char *name, const char *modules, const char *programs)
{
    char code[256];
    snprintf(code, sizeof code, "import %s", modules);
    const char *argv[] = { "/usr/bin/python3", "-c", code, NULL };
    struct pp_result r;
    pp_run(&r, argv, NULL, 60, NULL, NULL);
    if (!r.exited || r.code != 0) {
        fprintf(stderr, "SKIP: %s: Debian's python3 cannot import %s "
                "(.ci/deps installs it)\n", name, modules);
        return 0;
    }
    char prog[128];
    for (const char *p = programs; p && *p; p += strspn(p, " ")) {
        size_t n = strcspn(p, " ");
        snprintf(prog, sizeof prog, "/usr/bin/%.*s", (int)n, p);
        if (access(prog, X_OK) != 0) {
            fprintf(stderr, "SKIP: %s: %s is not installed (.ci/deps installs "
                    "it)\n", name, prog);
            return 0;
        }
        p += n;
    }
    return 1;
}

/* One of server_drive.py's servers: the checks of compare(), and every
 * Python process the driver saw in the tree in the report. */
static void server(const char *name, const char *modules, const char *programs,
                   int port_offset)
{
    if (!have(name, modules, programs))
        return;
    int port = 20000 + (int)(getpid() % 20000) + 8 + 2 * port_offset;
    struct drive plain, pre;
    drive(&plain, name, port, NULL, 1);
    const char *dir = pp_tmpdir();
    drive(&pre, name, port, dir, 1);
    const struct pp_json *doc = compare(name, &plain, &pre, dir);
    cr_expect(pre.npy >= 1, "%s: the driver saw no Python process", name);
    size_t found = 0;
    for (size_t i = 0; i < pre.npy; i++) {
        const struct pp_json *p = pp_json_process(doc, pre.python[i], NULL);
        cr_expect(p != NULL, "%s: Python process %ld of the tree is not in the "
                  "report", name, pre.python[i]);
        found += p != NULL;
    }
    fprintf(stderr, "%s: %zu Python processes seen in the tree (%zu plainly), "
            "%zu of them in the report\n", name, pre.npy, plain.npy, found);
}

Test(servers, celery_prefork_workers_with_redis_are_profiled, .timeout = 300)
{
    server("celery", "celery, redis", "redis-server", 0);
}

Test(servers, uvicorn_workers_are_profiled, .timeout = 300)
{
    server("uvicorn", "uvicorn", NULL, 1);
}

Test(servers, a_dask_local_cluster_is_profiled, .timeout = 300)
{
    server("dask", "distributed", NULL, 2);
}

Test(servers, gevent_and_its_subprocess_are_profiled, .timeout = 300)
{
    server("gevent", "gevent", NULL, 3);
}

Test(servers, joblib_loky_workers_are_profiled, .timeout = 300)
{
    server("joblib", "joblib", NULL, 4);
}
