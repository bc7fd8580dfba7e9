// Figure 5p's browser side: opens a page written by `pyprof-merge -f html`
// in Debian's chromium (headless, through puppeteer-core) REPS times, each
// in a new tab, and prints one JSON line: per round, the milliseconds from
// navigation start to the end of the load event (the page's script draws
// everything before it ends), and those of a switch to cpu mode and back
// (a full recount and redraw), timed inside the page.
//
//   NODE_PATH=.../node_modules node page_open.cjs PAGE REPS
"use strict";
const os = require("os");
const fs = require("fs");
const path = require("path");
const puppeteer = require("puppeteer-core");

async function main() {
  const [page, reps] = [path.resolve(process.argv[2]), +(process.argv[3] || 5)];
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pyprof-bench-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: process.env.PYPROF_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--user-data-dir=" + profile],
    timeout: 60000,
  });
  const out = { open_ms: [], switch_ms: [], errors: [] };
  try {
    for (let i = 0; i < reps; i++) {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 1400, height: 900 });
      tab.on("pageerror", (e) => out.errors.push(String(e)));
      await tab.goto("file://" + page, { waitUntil: "load", timeout: 120000 });
      await tab.waitForFunction(() => window.pyprof && document.getElementById("total-samples"));
      out.open_ms.push(await tab.evaluate(() =>
        performance.getEntriesByType("navigation")[0].loadEventEnd));
      out.switch_ms.push(await tab.evaluate(() => {
        const t0 = performance.now();
        document.getElementById("mode-cpu").click();
        document.getElementById("mode-wall").click();
        return performance.now() - t0;
      }));
      await tab.close();
    }
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.log(JSON.stringify({ error: String(e && e.message || e) })); process.exit(1); });
