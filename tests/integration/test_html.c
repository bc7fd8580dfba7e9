/*
 * test_html.c — the HTML page and --diff.  On every interpreter: the data
 * the page embeds agrees with the JSON report in every mode, the page asks
 * for nothing from the network, and --diff ranks the function that grew.
 * Once, in Debian's chromium driven by puppeteer-core
 * (tests/browser/check_page.cjs): what a user sees and does on the page of
 * a real process tree; its screenshots stay in $PYPROF_TEST_SHOTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "json_report.h"

#define HZ 200

static const char *html_page(const struct pp_python *py, const char *const opts[],
                             const char *input)
{
    struct pp_result rep;
    pp_merge(&rep, "html", opts, input);
    pp_assert(py, rep.exited && rep.code == 0, "html: %s; stderr:\n%.2000s",
              pp_describe(&rep), rep.err);
    return rep.out;
}

/* The JSON the page carries in its data element. */
static const struct pp_json *page_data(const struct pp_python *py, const char *page)
{
    const char *tag = "<script type=\"application/json\" id=\"data\">";
    const char *from = strstr(page, tag);
    pp_assert(py, from, "no data element in the page");
    from += strlen(tag);
    const char *to = strstr(from, "</script>");
    pp_assert(py, to, "the data element does not end");
    char *text = strndup(from, (size_t)(to - from)), err[256];
    struct pp_json *doc = pp_json_parse(text, err, sizeof err);
    pp_assert(py, doc, "the page's data is not JSON: %s", err);
    return doc;
}

static void run_tree(const struct pp_python *py, const char *dir)
{
    struct pp_result run;
    const char *args[] = { pp_script("flame_tree.py"), "1.0", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "flame_tree.py");
    pp_assert(py, strstr(run.out, "tree done"), "flame_tree.py did not finish:\n%s", run.out);
}

PP_TEST(html, page_data_agrees_with_the_json_report_in_every_mode, .timeout = 120)
{
    const char *dir = pp_tmpdir();
    run_tree(py, dir);
    const char *page = html_page(py, NULL, dir);
    const struct pp_json *data = page_data(py, page);
    const char *modes[] = { "wall", "cpu", "gil", "exception", "tasks" };
    for (int m = 0; m < 5; m++) {
        const struct pp_json *doc = pp_json_report(py, dir, modes[m], 0);
        char key[32];
        snprintf(key, sizeof key, "profile.samples.%d", m);
        double page_n = pp_json_num(data, key, -1);
        double json_n = pp_json_num(doc, "totals.samples", -2);
        pp_expect(py, page_n == json_n, "%s: the page has %.0f samples, the JSON report %.0f",
                  modes[m], page_n, json_n);
        /* per stack too: the page's stacks summed in this mode */
        const struct pp_json *st = pp_json_get(data, "profile.stacks");
        double sum = 0;
        for (size_t i = 0; st && i + 7 < st->n; i += 8)
            sum += st->items[i + 3 + (size_t)m].num;
        pp_expect(py, sum == json_n, "%s: the page's stacks sum to %.0f, JSON %.0f",
                  modes[m], sum, json_n);
    }
    const struct pp_json *wall = pp_json_report(py, dir, "wall", 0);
    pp_expect(py, pp_json_len(data, "profile.procs") == pp_json_len(wall, "processes"),
              "the page lists %zu processes, the JSON report %zu",
              pp_json_len(data, "profile.procs"), pp_json_len(wall, "processes"));
    pp_expect(py, pp_json_num(wall, "totals.processes", 0) == 3, "expected 3 processes");
    /* The hot lines' source is embedded with the page. */
    const struct pp_json *src = pp_json_get(data, "profile.src");
    int found = 0;
    for (size_t i = 0; src && i < src->n; i++) {
        const char *file = pp_json_str(&src->items[i], "0");
        if (!file || !strstr(file, "flame_tree.py"))
            continue;
        const struct pp_json *lines = pp_json_get(&src->items[i], "1");
        for (size_t k = 0; lines && k + 1 < lines->n; k += 2)
            found |= lines->items[k + 1].str && strstr(lines->items[k + 1].str, "n += i * i  # HOT");
    }
    pp_expect(py, found, "the HOT line's source is not in the page");
    /* Self-contained: the page around the data (whose source lines may
     * well quote URLs) refers to nothing outside it. */
    const char *d0 = strstr(page, "id=\"data\">"), *d1 = d0 ? strstr(d0, "</script>") : NULL;
    pp_assert(py, d0 && d1, "no data element");
    char *shell = strndup(page, (size_t)(d0 - page));
    shell = realloc(shell, strlen(shell) + strlen(d1) + 1);
    strcat(shell, d1);
    pp_expect(py, !strstr(shell, "<script src") && !strstr(shell, "<link") &&
                  !strstr(shell, "http://") && !strstr(shell, "https://") &&
                  !strstr(shell, "url("), "the page refers to something outside it");
    /* '<' is escaped in the data, so nothing in it ends its element. */
    pp_expect(py, !memchr(d0 + 10, '<', (size_t)(d1 - d0 - 10)), "a raw '<' in the data");
    free(shell);
}

static void run_diff_pair(const struct pp_python *py, const char *a, const char *b)
{
    struct pp_result run;
    const char *aa[] = { pp_script("diff_work.py"), "alpha", "0.8", NULL };
    const char *bb[] = { pp_script("diff_work.py"), "beta", "0.8", NULL };
    pp_run_python(&run, py, a, HZ, NULL, aa);
    pp_expect_ok(py, &run, "diff_work.py alpha");
    pp_run_python(&run, py, b, HZ, NULL, bb);
    pp_expect_ok(py, &run, "diff_work.py beta");
}

PP_TEST(html, diff_ranks_the_functions_whose_share_changed, .timeout = 120)
{
    const char *a = pp_tmpdir(), *b = pp_tmpdir();
    run_diff_pair(py, a, b);
    const char *argv[] = { getenv("PYPROF_TEST_MERGE"), "--diff", a, b, NULL };
    struct pp_result rep;
    pp_run(&rep, argv, NULL, 60, NULL, NULL);
    pp_assert(py, rep.exited && rep.code == 0, "--diff: %s; stderr:\n%.2000s",
              pp_describe(&rep), rep.err);
    /* The two top rows are alpha (shrank) and beta (grew), in some order. */
    const char *head = strstr(rep.out, "FUNCTION\n");
    pp_assert(py, head, "no table:\n%s", rep.out);
    char row[2][512] = { "", "" };
    const char *p = head + strlen("FUNCTION\n");
    for (int i = 0; i < 2 && *p; i++) {
        size_t n = strcspn(p, "\n");
        snprintf(row[i], sizeof row[i], "%.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
    for (int i = 0; i < 2; i++) {
        double sb, sn, ds;
        char name[128];
        pp_assert(py, sscanf(row[i], "%lf%% %lf%% %lf%% %*f%% %*f%% %*f%% %127s",
                             &sb, &sn, &ds, name) == 4, "row: %s", row[i]);
        pp_measure(py, "change of share, points", ds < 0 ? -ds : ds, ">=", 20);
        if (!strcmp(name, "alpha"))
            pp_expect(py, sb > 50 && sn < 50 && ds < -20, "alpha did not shrink: %s", row[i]);
        else if (!strcmp(name, "beta"))
            pp_expect(py, sb < 50 && sn > 50 && ds > 20, "beta did not grow: %s", row[i]);
        else
            pp_expect(py, 0, "top rows are not alpha and beta:\n%s", rep.out);
    }
    /* --diff takes exactly two inputs, and text or html only. */
    const char *bad[] = { getenv("PYPROF_TEST_MERGE"), "--diff", a, NULL };
    pp_run(&rep, bad, NULL, 60, NULL, NULL);
    pp_expect(py, rep.exited && rep.code == 2, "--diff with one input: %s", pp_describe(&rep));
    const char *badf[] = { getenv("PYPROF_TEST_MERGE"), "--diff", "-f", "json", a, b, NULL };
    pp_run(&rep, badf, NULL, 60, NULL, NULL);
    pp_expect(py, rep.exited && rep.code == 2, "--diff -f json: %s", pp_describe(&rep));
}

/* ------------------------------------------------------------ browser */

/* Why the browser test cannot run here, or NULL. */
static const char *browser_missing(char *why, size_t cap)
{
    const char *chromium = getenv("PYPROF_CHROMIUM");
    if (!chromium || !*chromium)
        chromium = "/usr/bin/chromium";
    const char *npm = getenv("PYPROF_NPM_DIR");
    char mod[1024];
    snprintf(mod, sizeof mod, "%s/browser/node_modules/puppeteer-core/package.json",
             npm && *npm ? npm : "/var/cache/pyprof-npm");
    if (access(chromium, X_OK) != 0)
        snprintf(why, cap, "%s not found (Debian package chromium)", chromium);
    else if (system("node --version >/dev/null 2>&1") != 0)
        snprintf(why, cap, "node not found");
    else if (access(mod, R_OK) != 0)
        snprintf(why, cap, "%s not found (check.sh installs it)", mod);
    else
        return NULL;
    return why;
}

static int browser_ready(void)
{
    char why[1200];
    if (!browser_missing(why, sizeof why))
        return 1;
    fprintf(stderr, "SKIP: html browser tests: %s\n", why);
    return 0;
}

static const char *shots_dir(void)
{
    const char *s = getenv("PYPROF_TEST_SHOTS");
    cr_assert(s && *s, "PYPROF_TEST_SHOTS is not set");
    mkdir(s, 0755);
    return s;
}

/* node check_page.cjs PAGE SHOTS EXPECT; every check named must pass. */
static void drive(const struct pp_python *py, const char *dir, const char *page,
                  const char *expect, const char *const checks[])
{
    char page_path[512], expect_path[512], script[512], node_path[600], chromium[600];
    snprintf(page_path, sizeof page_path, "%s/page.html", dir);
    snprintf(expect_path, sizeof expect_path, "%s/expect.json", dir);
    FILE *f = fopen(page_path, "w");
    cr_assert(f && fputs(page, f) >= 0 && fclose(f) == 0, "cannot write %s", page_path);
    f = fopen(expect_path, "w");
    cr_assert(f && fputs(expect, f) >= 0 && fclose(f) == 0, "cannot write %s", expect_path);
    snprintf(script, sizeof script, "%s/check_page.cjs", getenv("PYPROF_TEST_BROWSER"));
    const char *npm = getenv("PYPROF_NPM_DIR");
    snprintf(node_path, sizeof node_path, "NODE_PATH=%s/browser/node_modules",
             npm && *npm ? npm : "/var/cache/pyprof-npm");
    const char *c = getenv("PYPROF_CHROMIUM");
    snprintf(chromium, sizeof chromium, "PYPROF_CHROMIUM=%s", c && *c ? c : "/usr/bin/chromium");
    const char *argv[] = { "node", script, page_path, shots_dir(), expect_path, NULL };
    const char *env[] = { node_path, chromium, NULL };
    struct pp_result r;
    pp_run(&r, argv, env, 180, NULL, NULL);
    if (r.exited && r.code == 3) {
        fprintf(stderr, "%s", r.out);     /* "SKIP: chromium did not start: ..." */
        return;
    }
    pp_expect(py, r.exited && r.code == 0, "browser checks: %s\n%s\n%.2000s",
              pp_describe(&r), r.out, r.err);
    for (size_t i = 0; checks[i]; i++) {
        char want[128];
        snprintf(want, sizeof want, "ok %s\n", checks[i]);
        pp_expect(py, strstr(r.out, want), "check %s did not pass:\n%s", checks[i], r.out);
    }
}

/* The browser is slow to start and the page does not depend on the
 * interpreter (the data checks above run on each): one interpreter, the
 * newest pyenv 3.12 or 3.13, else Debian's. */
static const struct pp_python *one_python(void)
{
    static struct pp_python py;
    const char *home = getenv("HOME");
    const char *minors[] = { "3.13.0", "3.12.1" };
    for (size_t i = 0; i < 2 && !py.path[0]; i++) {
        snprintf(py.path, sizeof py.path, "%s/.pyenv/versions/%s/bin/python",
                 home && *home ? home : "/root", minors[i]);
        if (access(py.path, X_OK) != 0)
            py.path[0] = 0;
    }
    if (!py.path[0])
        snprintf(py.path, sizeof py.path, "/usr/bin/python3");
    snprintf(py.label, sizeof py.label, "%s", py.path);
    return &py;
}

Test(html, page_in_chromium_search_zoom_filters_modes_lines, .timeout = 300)
{
    if (!browser_ready())
        return;
    const struct pp_python *py = one_python();
    const char *dir = pp_tmpdir();
    run_tree(py, dir);
    const char *page = html_page(py, NULL, dir);
    const struct pp_json *wall = pp_json_report(py, dir, "wall", 0), *cpu = pp_json_report(py, dir, "cpu", 0);
    const struct pp_json *root = pp_json_process(wall, 0, "root"), *child = pp_json_process(wall, 0, "spawn");
    pp_assert(py, root && child, "no root or spawned process in the report");
    const struct pp_json *thr = NULL, *ts = pp_json_get(root, "threads");
    for (size_t i = 0; ts && i < ts->n; i++)
        if (pp_json_num(&ts->items[i], "tid", 0) != pp_json_num(root, "pid", -1))
            thr = &ts->items[i];
    pp_assert(py, thr, "the root's second thread is not in the report");
    const struct pp_json *cs = pp_json_find(pp_json_get(wall, "functions"), "name", "child_spin");
    pp_assert(py, cs, "child_spin is not in the report");
    const struct pp_json *rs = pp_json_find(pp_json_get(wall, "functions"), "name", "root_spin");
    pp_assert(py, rs, "root_spin is not in the report");
    const struct pp_json *su = pp_json_find(pp_json_get(wall, "functions"), "name", "spin_until");
    pp_assert(py, su, "spin_until is not in the report");
    /* a process with no samples in exception mode (the forked child,
     * which only spins), for the empty-selection check; a leaf, since a
     * click on a process selects its subtree (the root may have none of
     * its own while a child raised during its start-up) */
    const struct pp_json *exc = pp_json_report(py, dir, "exception", 0);
    const struct pp_json *eps = pp_json_get(exc, "processes");
    long empty_pid = -1;
    for (size_t i = 0; eps && i < eps->n && empty_pid < 0; i++) {
        const char *id = pp_json_str(&eps->items[i], "id");
        int leaf = id != NULL;
        for (size_t k = 0; leaf && k < eps->n; k++) {
            const char *parent = pp_json_str(&eps->items[k], "parent");
            leaf = !(parent && strcmp(parent, id) == 0);
        }
        if (leaf && pp_json_num(&eps->items[i], "samples", -1) == 0)
            empty_pid = (long)pp_json_num(&eps->items[i], "pid", -1);
    }
    /* the processes with wall samples: one root box each by process */
    const struct pp_json *wps = pp_json_get(wall, "processes");
    long sampled_procs = 0;
    for (size_t i = 0; wps && i < wps->n; i++)
        sampled_procs += pp_json_num(&wps->items[i], "samples", 0) > 0;
    long hot[4];
    size_t nhot = pp_script_lines("flame_tree.py", "# HOT", hot, 4);
    pp_assert(py, nhot == 2, "flame_tree.py should mark two HOT lines");
    char expect[2048];
    snprintf(expect, sizeof expect,
             "{\"total_wall\": %.0f, \"total_cpu\": %.0f, \"search\": \"child_spin\", "
             "\"search_share\": %.6f, \"zoom\": \"root_spin\", \"zoom_file\": \"flame_tree.py\", "
             "\"child_pid\": %.0f, \"child_samples\": %.0f, \"root_pid\": %.0f, "
             "\"root_samples\": %.0f, \"thread\": %.0f, \"thread_samples\": %.0f, "
             "\"hot_lines\": [%ld, %ld], \"interval_s\": %.9g, \"zoom_self\": %.0f, "
             "\"zoom_total\": %.0f, \"empty_pid\": %ld, \"spin_total\": %.0f, "
             "\"sampled_procs\": %ld}",
             pp_json_num(wall, "totals.samples", -1), pp_json_num(cpu, "totals.samples", -1),
             pp_json_num(cs, "total", 0) / pp_json_num(wall, "totals.samples", 1),
             pp_json_num(child, "pid", -1), pp_json_num(child, "samples", -1),
             pp_json_num(root, "pid", -1), pp_json_num(root, "samples", -1),
             pp_json_num(thr, "tid", -1), pp_json_num(thr, "samples", -1), hot[0], hot[1],
             pp_json_num(root, "interval_ns", 0) / 1e9, pp_json_num(rs, "self", -1),
             pp_json_num(rs, "total", -1), empty_pid, pp_json_num(su, "total", -1),
             sampled_procs);
    const char *checks[] = { "total_wall", "seconds", "search_share", "search_highlight", "hover_details",
                             "click_zooms", "back_unzooms", "icicle", "mode_cpu_total", "mode_wall_again",
                             "process_filter", "process_subtree", "process_alone",
                             "thread_filter", "view_by_process", "view_by_thread",
                             "view_merged_again", "function_table", "callers_callees",
                             "callers_three_places",
                             "table_marks_graph", "table_sorts", "empty_says_so", "legend",
                             "hottest_line", "panels_align", "toolbar_one_row", "table_filters",
                             "toolbar_steady", "lines_follow_search", "tooltip_refresh",
                             "source_follows_click", "keys_search", "tower_drawn",
                             "keys_move_and_zoom", "deep_tower_rows", "deep_tower_in_view",
                             "keys_back", "url_keeps_view", "reload_keeps_view",
                             "no_console_errors",
                             "no_network", NULL };
    drive(py, dir, page, expect, checks);
}

Test(html, diff_page_in_chromium_colours_by_change, .timeout = 300)
{
    if (!browser_ready())
        return;
    const struct pp_python *py = one_python();
    const char *a = pp_tmpdir(), *b = pp_tmpdir();
    run_diff_pair(py, a, b);
    const char *opts[] = { "--diff", a, NULL };
    const char *page = html_page(py, opts, b);
    const char *checks[] = { "diff_grew_red", "diff_shrank_blue", "no_console_errors", NULL };
    drive(py, b, page,
          "{\"diff\": true, \"grew\": \"beta\", \"shrank\": \"alpha\"}", checks);
}

/* A pool through a forkserver and a Celery-like prefork tree whose
 * processes title themselves: every process is labelled by its role or
 * title, and the page's process panel shows those labels whole. */
Test(html, the_process_panel_labels_a_pool_and_a_prefork_tree, .timeout = 300)
{
    if (!browser_ready())
        return;
    const struct pp_python *py = one_python();
    const char *dir = pp_tmpdir();
    struct pp_result run;
    const char *args[] = { pp_script("labelled_tree.py"), "0.4", NULL };
    pp_run_python(&run, py, dir, HZ, NULL, args);
    pp_expect_ok(py, &run, "labelled_tree.py");
    pp_assert(py, strstr(run.out, "labelled done"), "labelled_tree.py did not finish:\n%s",
              run.out);
    const char *page = html_page(py, NULL, dir);
    const struct pp_json *procs = pp_json_get(page_data(py, page), "profile.procs");
    pp_assert(py, procs && procs->n > 0, "no processes in the page");
    struct { const char *label; int want, got; } roles[] = {
        { "prefork master [labelled]", 1, 0 },
        { "prefork worker 1 [labelled]", 1, 0 },
        { "prefork worker 2 [labelled]", 1, 0 },
        { "multiprocessing forkserver", 1, 0 },
        { "multiprocessing resource_tracker", 1, 0 },
        { "multiprocessing forkserver worker", 2, 0 },
    };
    size_t nroles = sizeof roles / sizeof roles[0];
    char expect[8192] = "{\"labels\": [";
    for (size_t i = 0; i < procs->n; i++) {
        const char *label = pp_json_str(&procs->items[i], "label");
        long pid = (long)pp_json_num(&procs->items[i], "pid", -1);
        pp_assert(py, label && !strpbrk(label, "\"\\"), "process %ld: label %s", pid,
                  label ? label : "(none)");
        for (size_t r = 0; r < nroles; r++)
            roles[r].got += !strcmp(label, roles[r].label);
        size_t n = strlen(expect);
        snprintf(expect + n, sizeof expect - n, "%s[%ld, \"%s\"]", i ? ", " : "", pid, label);
    }
    strncat(expect, "]}", sizeof expect - strlen(expect) - 1);
    for (size_t r = 0; r < nroles; r++)
        pp_expect(py, roles[r].got == roles[r].want, "%d processes labelled \"%s\", expected %d",
                  roles[r].got, roles[r].label, roles[r].want);
    const char *checks[] = { "labels_shown", "no_console_errors", NULL };
    drive(py, dir, page, expect, checks);
}
