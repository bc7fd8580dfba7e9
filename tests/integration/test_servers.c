/*
 * test_servers.c — the servers people deploy Python on, from Debian's
 * packages, run under pyprof-run as users run them: every Python process
 * of the tree in the report, the hot function in the processes that ran
 * it about as often as they ran it, the job's own results and exit status
 * as without pyprof, and nothing left running.
 *
 * uWSGI (uwsgi-plugin-python3, Debian's Python): a master and 2 workers
 * forked from C without CPython's fork handling (pyprof(7), Fork), driven
 * by tests/py/uwsgi_drive.py, which counts the workers that answered and
 * how long each spent in hot by its own clock.
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
        sscanf(p, "master %ld", &d->master);
        sscanf(p, "status %ld", &d->status);
        sscanf(p, "left %ld", &d->left);
        if (!strncmp(p, "hung", 4))
            d->hung = 1;
    }
}

static void drive(struct drive *d, const char *mode, int port, const char *dir)
{
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    char hz[16];
    snprintf(hz, sizeof hz, "%d", HZ);
    const char *tmp = pp_tmpdir();
    const char *plain[] = { "/usr/bin/python3", pp_script("uwsgi_drive.py"), mode,
                            portstr, tmp, NULL };
    const char *pre[] = { "/usr/bin/python3", pp_script("uwsgi_drive.py"), mode,
                          portstr, tmp, getenv("PYPROF_TEST_RUN"), "-q", "-o", dir,
                          "-r", hz, "--", NULL };
    struct pp_result r;
    pp_run(&r, dir ? pre : plain, NULL, 120, NULL, NULL);
    cr_assert(r.exited && r.code == 0, "uwsgi %s%s: %s\n%s%s", mode,
              dir ? " under pyprof-run" : "", pp_describe(&r), r.out, r.err);
    parse_drive(r.out, d);
    cr_assert(d->master > 0 && d->n >= 2 && d->results[0],
              "uwsgi %s: the driver printed:\n%s", mode, r.out);
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
    struct drive plain, pre;
    drive(&plain, mode, port, NULL);
    const char *dir = pp_tmpdir();
    drive(&pre, mode, port, dir);
    cr_expect(!plain.hung && !pre.hung, "uwsgi %s did not stop on SIGTERM "
              "(plainly: %s, under pyprof-run: %s)", mode,
              plain.hung ? "hung" : "stopped", pre.hung ? "hung" : "stopped");
    cr_expect(!strcmp(plain.results, pre.results), "uwsgi %s: results %s plainly, "
              "%s under pyprof-run", mode, plain.results, pre.results);
    cr_expect(plain.status == pre.status, "uwsgi %s: exit status %ld plainly, %ld "
              "under pyprof-run", mode, plain.status, pre.status);
    cr_expect(pre.left == 0 && plain.left == 0, "uwsgi %s: %ld processes left "
              "running under pyprof-run (%ld plainly)", mode, pre.left, plain.left);

    static const struct pp_python debian = {
        .path = "/usr/bin/python3", .label = "uwsgi's python3 (Debian)" };
    const struct pp_json *doc = pp_json_report(&debian, dir, "wall", 0);
    cr_expect(pp_json_process(doc, pre.master, NULL) != NULL,
              "uwsgi %s: the master %ld is not in the report", mode, pre.master);
    for (size_t i = 0; i < pre.n; i++) {
        long pid = pre.served[i].pid;
        const struct pp_json *p = pp_json_process(doc, pid, "fork");
        cr_expect(p != NULL, "uwsgi %s: worker %ld, which served %ld requests, is "
                  "not in the report as a fork child", mode, pid,
                  pre.served[i].requests);
        if (!p)
            continue;
        const struct pp_json *c = pp_json_get(p, "complete");
        cr_expect(c && c->type == PP_JBOOL && c->num == 1,
                  "uwsgi %s: worker %ld's file is incomplete", mode, pid);
        /* hot's samples against the time the worker's own clock gave it:
         * a worker whose requests all went unsampled has 0 (every worker,
         * before the fork fix). */
        double want = pre.served[i].secs * HZ;
        double n = pp_json_samples_in(doc, pid, "hot");
        fprintf(stderr, "uwsgi %s: worker %ld served %ld requests, %.3f s in hot: "
                "%.0f samples of hot (%.0f at %d Hz)\n", mode, pid,
                pre.served[i].requests, pre.served[i].secs, n, want, HZ);
        if (want >= 20)
            cr_expect(n >= 0.6 * want, "uwsgi %s: worker %ld spent %.3f s in hot "
                      "but has %.0f samples of it at %d Hz", mode, pid,
                      pre.served[i].secs, n, HZ);
    }
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
