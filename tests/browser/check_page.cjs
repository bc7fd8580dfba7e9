// Drives Debian's chromium (headless, through puppeteer-core: no browser
// download) over a page written by `pyprof-merge --format html` and checks
// what a user sees.  Run by tests/integration/test_html.c:
//
//   node check_page.cjs PAGE.html SHOT_DIR EXPECT.json
//
// EXPECT holds what the JSON report says of the same profile.  Prints
// "ok NAME" or "FAIL NAME: why" per check; exits 1 if any failed, 3 if
// the browser could not be started.  Screenshots go to SHOT_DIR.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const [page_path, shots, expect_path] = process.argv.slice(2);
const E = JSON.parse(fs.readFileSync(expect_path, "utf8"));
let failed = 0;
function check(name, cond, why) {
  if (cond) console.log("ok " + name);
  else { failed++; console.log("FAIL " + name + ": " + why); }
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pyprof-chromium-"));
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath: process.env.PYPROF_CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile],
      timeout: 60000,
      protocolTimeout: 60000,
    });
  } catch (e) {
    console.log("SKIP: chromium did not start: " + e.message.split("\n")[0]);
    process.exit(3);
  }
  try {
    await run(browser);
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function run(browser) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const errors = [], requests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  await page.goto("file://" + path.resolve(page_path), { waitUntil: "load" });
  await page.waitForFunction(() => window.pyprof && document.getElementById("total-samples"));
  const shot = (name) => page.screenshot({ path: path.join(shots, name), fullPage: true });
  const total = () => page.$eval("#totals", (t) => +t.dataset.samples);
  await shot(E.diff ? "html-diff.png" : "html-overview.png");
  await (await page.$("#graph-panel")).screenshot({ path: path.join(shots, E.diff ? "html-diff-graph.png"
                                                                                    : "html-graph.png") });

  if (E.diff) {
    // The grown function is drawn red, the shrunk one blue.
    const tint = async (name) => page.evaluate((n) => {
      const b = window.pyprof.box(n);
      if (!b) return null;
      const c = document.getElementById("flame"), r = c.getBoundingClientRect();
      const d = window.devicePixelRatio || 1;
      const px = c.getContext("2d").getImageData(Math.round((b.x - r.left + Math.min(b.w / 2, 3)) * d),
                                                 Math.round((b.y - r.top + 3) * d), 1, 1).data;
      return [px[0], px[1], px[2]];
    }, name);
    const grew = await tint(E.grew), shrank = await tint(E.shrank);
    check("diff_grew_red", grew && grew[0] > grew[2] + 40, E.grew + " is " + JSON.stringify(grew));
    check("diff_shrank_blue", shrank && shrank[2] > shrank[0] + 40, E.shrank + " is " + JSON.stringify(shrank));
    check("no_console_errors", errors.length === 0, errors.join(" | "));
    return;
  }

  if (E.labels) {
    // Process labels: each process's row shows the label the reports
    // give it, whole (wrapped rather than cut), with its pid.
    const bad = [];
    for (const [pid, label] of E.labels) {
      const row = await page.$eval('#procs .proc[data-pid="' + pid + '"]', (r) => {
        const c = r.querySelector(".cmd");
        return [c.textContent, r.querySelector(".meta").textContent, c.scrollHeight <= c.clientHeight + 1];
      }).catch(() => null);
      if (!row || row[0] !== label || !row[1].includes("pid " + pid) || !row[2])
        bad.push(pid + " " + label + ": " + JSON.stringify(row));
    }
    check("labels_shown", E.labels.length > 0 && bad.length === 0, bad.join(" | "));
    await (await page.$("#procs-panel")).screenshot({ path: path.join(shots, "html-labels.png") });
    check("no_console_errors", errors.length === 0, errors.join(" | "));
    return;
  }

  // Totals: the page's and the JSON report's, in wall and cpu mode.
  const wall = await total();
  check("total_wall", wall === E.total_wall, "page says " + wall + ", JSON " + E.total_wall);
  // Seconds beside samples: each sample is its process's interval.
  const seconds = await page.$eval("#totals", (t) => +t.dataset.seconds);
  check("seconds", Math.abs(seconds - E.total_wall * E.interval_s) < 1e-6 * (1 + seconds) &&
        /of threads' time/.test(await page.$eval("#totals", (t) => t.textContent)),
        "page says " + seconds + " s, JSON " + E.total_wall + " samples of " + E.interval_s + " s");

  // The process panel and the graph end on one line; the toolbar is one
  // row at this width and does not move when the match count appears.
  const bottoms = await page.evaluate(() => ["procs-panel", "graph-panel"].map((id) =>
    document.getElementById(id).getBoundingClientRect().bottom));
  check("panels_align", Math.abs(bottoms[0] - bottoms[1]) <= 1, "bottoms " + JSON.stringify(bottoms));
  const bar = () => page.evaluate(() => {
    const t = document.querySelector(".toolbar").getBoundingClientRect();
    return [t.height, document.querySelector("main").getBoundingClientRect().top,
            document.getElementById("back").getBoundingClientRect().left];
  });
  const bar0 = await bar();
  check("toolbar_one_row", bar0[0] < 50, "toolbar " + bar0[0] + " px high at 1400 px wide");

  // Search: the matched function is highlighted, its share shown.
  await page.type("#search", E.search);
  await page.waitForFunction(() => document.getElementById("match").textContent !== "");
  const bar1 = await bar();
  check("toolbar_steady", JSON.stringify(bar0) === JSON.stringify(bar1),
        "toolbar height, main's top, back's left before " + JSON.stringify(bar0) + ", after " +
        JSON.stringify(bar1));
  // The line view counts the matched stacks only.
  const lineScope = () => page.$eval("#lines-scope", (s) => [+s.dataset.samples, s.textContent]);
  const matchedN = await page.$eval("#match", (m) => +m.dataset.samples);
  const ls = await lineScope();
  check("lines_follow_search", ls[0] === matchedN && matchedN > 0 && /matching the search/.test(ls[1]),
        "line view " + JSON.stringify(ls) + ", matched " + matchedN);
  const share = await page.$eval("#match", (m) => +m.dataset.share);
  const text = await page.$eval("#match", (m) => m.textContent);
  check("search_share", Math.abs(share - E.search_share) < 0.0005,
        "page " + share + " (" + text + "), JSON " + E.search_share);
  const magenta = await page.evaluate(() => {
    const c = document.getElementById("flame"), d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === 192 && d[i + 1] === 38 && d[i + 2] === 211) n++;
    return n;
  });
  check("search_highlight", magenta > 50, magenta + " highlighted pixels");
  // The function table lists the matching functions only.
  const listed = await page.$$eval("#funcs tbody tr", (rs) => rs.map((r) => r.dataset.func));
  check("table_filters", listed.length === 1 && listed[0] === E.search,
        "rows while searching " + E.search + ": " + JSON.stringify(listed));
  await shot("html-search.png");
  await page.$eval("#search", (s) => { s.value = ""; s.dispatchEvent(new Event("input")); });

  // Hover: the tooltip names the function with its samples.
  let box = await page.evaluate((n) => window.pyprof.box(n), E.zoom);
  check("zoom_target_drawn", box, E.zoom + " has no box");
  if (box) {
    await page.mouse.move(box.x + Math.min(box.w / 2, 20), box.y + box.h / 2);
    const tip = await page.$eval("#tip", (t) => (t.hidden ? "" : t.textContent));
    check("hover_details", tip.includes(E.zoom) && /samples/.test(tip) && tip.includes(E.zoom_file) &&
          /samples \u00b7 [0-9.<]+ m?s/.test(tip), "tooltip: " + tip);
    await shot("html-hover.png");
    // Click zooms; back returns.
    await page.mouse.click(box.x + Math.min(box.w / 2, 20), box.y + box.h / 2);
    const z = await page.evaluate(() => window.pyprof.zoom());
    const zb = await page.evaluate((n) => window.pyprof.box(n), E.zoom);
    check("click_zooms", z === E.zoom && zb && zb.w > box.w, "zoomed to " + z + ", box " + JSON.stringify(zb));
    // The tooltip describes what is under the pointer after the click
    // (the boxes moved): that box, with its share of the zoomed one, or
    // nothing.
    const px = box.x + Math.min(box.w / 2, 20), py = box.y + box.h / 2;
    const tip2 = await page.$eval("#tip", (t) => (t.hidden ? null : t.querySelector(".name").textContent +
                                                  " | " + t.textContent));
    const under = await page.evaluate((x, y) => window.pyprof.under(x, y), px, py);
    check("tooltip_refresh", under === null ? tip2 === null
          : tip2 !== null && tip2.startsWith(under + " | ") && /of zoomed/.test(tip2),
          "under the pointer: " + under + ", tooltip: " + tip2);
    // The clicked function's lines come first in the line view, which
    // counts the samples under the zoomed box only.
    const chosen = await page.$eval("#chosen-lines", (d) => d.dataset.func).catch(() => null);
    const zs = await lineScope();
    check("source_follows_click", chosen === E.zoom && zs[0] === E.zoom_total &&
          zs[1].includes("under " + E.zoom),
          "first in the line view: " + chosen + ", its scope " + JSON.stringify(zs) +
          ", JSON total " + E.zoom_total);
    await page.$eval("#lines-panel", (p) => p.scrollIntoView());
    await page.screenshot({ path: path.join(shots, "html-lines-follow.png") });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot("html-zoom.png");
    await page.click("#back");
    const z2 = await page.evaluate(() => window.pyprof.zoom());
    check("back_unzooms", z2 === "all", "after back: " + z2);
  }

  // Icicle: the root moves from the bottom to the top.
  const rootY = async () => (await page.evaluate(() => window.pyprof.box("all"))).y;
  const zoomY = async () => (await page.evaluate((n) => window.pyprof.box(n), E.zoom)).y;
  const flameOrder = (await rootY()) > (await zoomY());
  await page.click("#icicle");
  const icicleOrder = (await rootY()) < (await zoomY());
  check("icicle", flameOrder && icicleOrder, "root below then above: " + flameOrder + ", " + icicleOrder);
  await (await page.$("#graph-panel")).screenshot({ path: path.join(shots, "html-icicle.png") });
  await page.click("#icicle");

  // Mode switch.
  await page.click("#mode-cpu");
  const cpu = await total();
  check("mode_cpu_total", cpu === E.total_cpu && cpu !== wall, "page says " + cpu + ", JSON " + E.total_cpu);
  // A selection with no samples says so on the graph instead of a blank:
  // a process with none in exception mode (E.empty_pid, from the JSON).
  if (E.empty_pid > 0) {
    await page.click("#mode-exception");
    await page.click('#procs .proc[data-pid="' + E.empty_pid + '"]');
    check("empty_says_so", (await total()) === 0 &&
          (await page.evaluate(() => window.pyprof.message())) === "no samples",
          "process " + E.empty_pid + " in exception mode: " + (await total()) +
          " samples, message " + (await page.evaluate(() => window.pyprof.message())));
    await page.click('#procs .proc:first-child');
  } else {
    check("empty_says_so", false, "every process has exception samples: nothing empty to show");
  }
  await page.click("#mode-wall");
  check("mode_wall_again", (await total()) === wall, "not back to " + wall);
  check("legend", /standard library/.test(await page.$eval("#legend", (l) => l.textContent)),
        "legend: " + await page.$eval("#legend", (l) => l.textContent));

  // Process filter: one process, then the root with its subtree.
  await page.click('#procs .proc[data-pid="' + E.child_pid + '"]');
  const one = await total();
  check("process_filter", one === E.child_samples, "page says " + one + ", JSON " + E.child_samples);
  await shot("html-process.png");
  await page.click('#procs .proc[data-pid="' + E.root_pid + '"]');
  const sub = await total();
  check("process_subtree", sub === wall, "root with children: " + sub + ", all: " + wall);
  await page.click("#subtree");
  const alone = await total();
  check("process_alone", alone === E.root_samples, "root alone: " + alone + ", JSON " + E.root_samples);
  await page.click("#subtree");
  // Thread filter: the root's sleeping thread only.
  const opt = await page.$$eval("#thread option", (o, n) => {
    const m = o.find((x) => x.textContent.includes("(tid " + n + ","));
    return m ? m.value : null;
  }, E.thread);
  check("thread_listed", opt, "no option for thread " + E.thread);
  if (opt) {
    await page.select("#thread", opt);
    const th = await total();
    check("thread_filter", th === E.thread_samples, "thread " + E.thread + ": " + th +
          ", JSON " + E.thread_samples);
  }
  await page.click('#procs .proc:first-child');

  // Views: by process, one root box per process with its samples; by
  // thread, one per thread; merged again, the totals as before.
  await page.select("#view", "1");
  const byProc = await page.evaluate(() => window.pyprof.roots());
  const rootBox = byProc.find((r) => r[0].startsWith("process " + E.root_pid + " \u00b7 "));
  const childBox = byProc.find((r) => r[0].startsWith("process " + E.child_pid + " \u00b7 "));
  check("view_by_process", rootBox && childBox && rootBox[1] === E.root_samples &&
        childBox[1] === E.child_samples && (await total()) === wall &&
        byProc.length === E.sampled_procs,
        "roots: " + JSON.stringify(byProc));
  await shot("html-by-process.png");
  await page.select("#view", "2");
  const byThread = await page.evaluate(() => window.pyprof.roots());
  const thBox = byThread.find((r) => r[0].startsWith("thread " + E.root_pid + " \u00b7 ") &&
                                     r[0].endsWith("(tid " + E.thread + ")"));
  check("view_by_thread", thBox && thBox[1] === E.thread_samples && (await total()) === wall,
        "roots: " + JSON.stringify(byThread));
  await page.select("#view", "0");
  check("view_merged_again", (await total()) === wall &&
        (await page.evaluate(() => window.pyprof.roots())).every((r) => !/^process /.test(r[0])),
        "not back to the merged tree");

  // Function table: root_spin's row has the JSON report's counts; its
  // callers' samples add up to its total, its callees' and its self too;
  // choosing it marks it in the graph; sorting by self orders by self.
  const row = await page.$eval('#funcs tr.row[data-func="' + E.zoom + '"]',
                               (r) => [...r.cells].map((c) => c.textContent)).catch(() => null);
  const num = (t) => +String(t).replace(/,/g, "");
  check("function_table", row && num(row[2]) === E.zoom_self && num(row[5]) === E.zoom_total,
        "row " + JSON.stringify(row) + ", JSON self " + E.zoom_self + " total " + E.zoom_total);
  await page.click('#funcs tr.row[data-func="' + E.zoom + '"]');
  const sum = (id) => page.$$eval("#" + id + " tbody tr", (rs) =>
    rs.reduce((a, r) => a + +r.dataset.samples, 0)).catch(() => -1);
  const callers = await sum("callers"), callees = await sum("callees");
  check("callers_callees", callers === E.zoom_total && callees + E.zoom_self === E.zoom_total,
        "callers " + callers + ", callees " + callees + ", self " + E.zoom_self +
        ", total " + E.zoom_total);
  // spin_until is called from three places (root_spin, child_spin,
  // forked_spin, in three processes): three callers that sum to its total.
  await page.click('#funcs tr.row[data-func="spin_until"]');
  const three = await page.$$eval("#callers tbody tr", (rs) => rs.map((r) =>
    [r.dataset.func, +r.dataset.samples])).catch(() => []);
  check("callers_three_places", three.length === 3 &&
        three.reduce((a, r) => a + r[1], 0) === E.spin_total &&
        ["root_spin", "child_spin", "forked_spin"].every((f) => three.some((r) => r[0] === f)),
        "callers " + JSON.stringify(three) + ", total " + E.spin_total);
  await page.click('#funcs tr.row[data-func="' + E.zoom + '"]');
  const marked = await page.$eval("#match", (m) => +m.dataset.share);
  check("table_marks_graph", Math.abs(marked - E.zoom_total / wall) < 1e-6,
        "matched share " + marked + ", expected " + E.zoom_total / wall);
  await shot("html-functions.png");
  await page.click('#funcs th[data-sort="self"]');
  const selfs = await page.$$eval("#funcs tbody tr", (rs) => rs.slice(0, 5).map((r) =>
    +r.cells[2].textContent.replace(/,/g, "")));
  check("table_sorts", selfs.length > 1 && selfs.every((v, i) => !i || v <= selfs[i - 1]),
        "self column " + JSON.stringify(selfs));
  await page.$eval("#search", (s) => { s.value = ""; s.dispatchEvent(new Event("input")); });

  // Line view: the hottest line is a marked line of the script, with its text.
  const hot = await page.$eval("#hottest-line", (r) => ({ line: +r.dataset.line,
                                                          code: r.querySelector(".code").textContent }))
                        .catch(() => null);
  check("hottest_line", hot && E.hot_lines.includes(hot.line) && hot.code.includes("# HOT"),
        "hottest line: " + JSON.stringify(hot) + ", expected one of " + E.hot_lines);
  await page.$eval("#lines-panel", (p) => p.scrollIntoView());
  await page.screenshot({ path: path.join(shots, "html-lines.png") });

  await keyboard(page);
  await addressKeepsTheView(browser, page);

  check("no_console_errors", errors.length === 0, errors.join(" | "));
  check("no_network", requests.length === 0, requests.join(" "));
}

// Keys: "/" searches and Esc leaves the search; arrows move a cursor up
// the deep tower, Enter zooms to it, and the zoom into a tower 60 frames
// deep draws its ancestors in a few rows, the whole zoomed graph in view;
// Esc goes back one zoom.
async function keyboard(page) {
  const pp = (f) => page.evaluate(f);
  await page.click('#procs .proc:first-child');
  await page.click("#mode-wall");
  await page.$eval("#search", (s) => { s.value = ""; s.dispatchEvent(new Event("input")); });
  await page.click("#reset");
  await page.keyboard.press("/");
  const inSearch = await pp(() => document.activeElement && document.activeElement.id);
  await page.keyboard.press("Escape");
  const left = await pp(() => document.activeElement && document.activeElement.id);
  check("keys_search", inSearch === "search" && left !== "search",
        "after /: " + inSearch + ", after Esc: " + left);
  const box = await pp(() => window.pyprof.box("tower"));
  check("tower_drawn", box, "no tower box");
  if (!box) return;
  await page.mouse.click(box.x + Math.min(box.w / 2, 20), box.y + box.h / 2);
  await page.mouse.move(1, 1);
  const climb = 40;
  for (let i = 0; i <= climb; i++) await page.keyboard.press("ArrowUp");
  const cur = await pp(() => window.pyprof.cursor());
  await page.keyboard.press("ArrowLeft");
  const curLeft = await pp(() => window.pyprof.cursor());
  await page.keyboard.press("Enter");
  const z = await pp(() => window.pyprof.zoom());
  const rows = await pp(() => window.pyprof.rows());
  const fits = await pp(() => {
    const g = document.getElementById("graph");
    return g.scrollHeight <= g.clientHeight + 1;
  });
  check("keys_move_and_zoom", cur === "tower" && curLeft === "tower" && z === "tower",
        "cursor " + cur + " then " + curLeft + ", zoom " + z);
  check("deep_tower_rows", rows > 10 && rows < 30,
        rows + " rows drawn zoomed " + climb + " frames up a tower 60 deep (all ancestors: over 40)");
  check("deep_tower_in_view", fits, "the zoomed graph needs scrolling");
  await (await page.$("#graph-panel")).screenshot({ path: path.join(shots, "html-deep-tower.png") });
  await page.keyboard.press("Escape");
  const back = await pp(() => window.pyprof.rows());
  check("keys_back", back > rows, "rows after Esc: " + back + ", zoomed: " + rows);
  await page.click("#reset");
}

// The address keeps mode, process, search, view and zoom: a new tab
// opened on it, and a reload, show the same view.
async function addressKeepsTheView(browser, page) {
  await page.click("#mode-cpu");
  await page.click('#procs .proc[data-pid="' + E.child_pid + '"]');
  await page.$eval("#search", (s) => { s.value = "spin"; s.dispatchEvent(new Event("input")); });
  const b = await page.evaluate(() => window.pyprof.box("child_spin"));
  if (b) await page.mouse.click(b.x + Math.min(b.w / 2, 20), b.y + b.h / 2);
  const state = (p) => p.evaluate(() => [window.pyprof.zoom(), +document.getElementById("totals").dataset.samples,
    document.getElementById("search").value, document.querySelector("input[name=mode]:checked").id,
    (document.querySelector("#procs .proc.sel") || {}).textContent]);
  const want = await state(page);
  const url = page.url();
  const tab = await browser.newPage();
  await tab.setViewport({ width: 1400, height: 900 });
  await tab.goto(url, { waitUntil: "load" });
  await tab.waitForFunction(() => window.pyprof && document.getElementById("total-samples"));
  const got = await state(tab);
  check("url_keeps_view", /#/.test(url) && want[0] === "child_spin" &&
        JSON.stringify(got) === JSON.stringify(want),
        "address " + url.replace(/^.*#/, "#") + ": " + JSON.stringify(want) + " became " + JSON.stringify(got));
  await tab.select("#view", "1");
  await tab.reload({ waitUntil: "load" });
  await tab.waitForFunction(() => window.pyprof && document.getElementById("total-samples"));
  const v = await tab.$eval("#view", (s) => s.value);
  const t2 = await tab.$eval("#totals", (t) => +t.dataset.samples);
  check("reload_keeps_view", v === "1" && t2 === want[1], "view " + v + ", samples " + t2 +
        " after a reload (before: view 1, " + want[1] + ")");
  await tab.close();
}

main().then(() => process.exit(failed ? 1 : 0),
            (e) => { console.log("FAIL driver: " + (e && e.stack || e)); process.exit(1); });
