"""Figure 5p: the HTML page a user opens.  Generated files (bench/pp-gen)
of 50 processes whose stacks come from one program of 2,000 distinct
stacks, at 0.5 M and 5 M samples: the page's size must follow the
distinct stacks, not the samples (ten times the samples may add a digit
to each count, no more), and the page must open (parse, count,
draw) in under a second in headless chromium here (bench/page_open.cjs,
timed inside the page), with a mode switch beside it.
"""
import json
import os
import shutil
import subprocess

from harness import log, median

FIGURES = ("5p",)

NPM = os.environ.get("PYPROF_NPM_DIR", "/var/cache/pyprof-npm")
CHROMIUM = os.environ.get("PYPROF_CHROMIUM", "/usr/bin/chromium")


def browser_missing():
    if not os.access(CHROMIUM, os.X_OK):
        return "%s not found (Debian package chromium)" % CHROMIUM
    if shutil.which("node") is None:
        return "node not found"
    mod = os.path.join(NPM, "browser", "node_modules", "puppeteer-core", "package.json")
    if not os.path.exists(mod):
        return "%s not found (check.sh installs it)" % mod
    return None


def run(b):
    nfiles, small, big = 50, 500000, 5000000
    what = "HTML page, %d processes, 2,000 distinct stacks" % nfiles
    if b.merge_ok:
        b.add("5p", what, "n/a", "opens < 1 s", "n/a (%s)" % b.merge_ok)
        return
    pages = {}
    for n in (small, big):
        d = os.path.join(b.tmp, "page%d" % n)
        g = b.run([b.tool["pp-gen"], d, str(nfiles), str(n), "13"], timeout=600)
        if g.rc != 0:
            b.add("5p", what, "n/a", "opens < 1 s", "n/a (pp-gen: %s)" % g.err.strip()[-80:])
            return
        page = os.path.join(b.tmp, "page%d.html" % n)
        m = b.run([b.merge, "-f", "html", "-o", page, d], timeout=600)
        shutil.rmtree(d, ignore_errors=True)
        if m.rc != 0:
            b.add("5p", what, "n/a", "opens < 1 s", "n/a (merge: %s)" % m.err.strip()[-80:])
            return
        pages[n] = page
    s_small, s_big = os.path.getsize(pages[small]), os.path.getsize(pages[big])
    grow = s_big / s_small
    # Ten times the samples in the same stacks: only the counts' digits
    # grow (about one per count), where a page per sample would be x10.
    b.add("5p", "HTML page size, %d M vs %.1f M samples (same stacks)" % (
              big // 10 ** 6, small / 1e6),
          "%.0f KB vs %.0f KB (x%.3f)" % (s_big / 1e3, s_small / 1e3, grow),
          "<= x1.10 (the counts' digits)", "PASS" if grow <= 1.10 else "FAIL")
    why = browser_missing()
    if why:
        b.add("5p", what + ": open in chromium", "n/a", "< 1 s", "n/a (%s)" % why)
        return
    reps = 3 if b.quick else 7
    env = dict(b.base_env(), NODE_PATH=os.path.join(NPM, "browser", "node_modules"),
               PYPROF_CHROMIUM=CHROMIUM)
    r = b.run(["node", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "page_open.cjs"), pages[big], str(reps)],
              env=env, timeout=600)
    try:
        res = json.loads(r.out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        res = {"error": (r.err or r.out).strip()[-120:]}
    if r.rc != 0 or "error" in res or not res.get("open_ms"):
        b.add("5p", what + ": open in chromium", "n/a", "< 1 s",
              "n/a (%s)" % res.get("error", "rc %d" % r.rc))
        return
    op, sw = median(res["open_ms"]), median(res["switch_ms"])
    log("page open ms: %s; switch ms: %s" % (res["open_ms"], res["switch_ms"]))
    b.add("5p", what + ": open in chromium (%.0f KB)" % (s_big / 1e3),
          "%.0f ms to the end of load (min %.0f, max %.0f, %d tabs); mode switch and back %.0f ms" % (
              op, min(res["open_ms"]), max(res["open_ms"]), len(res["open_ms"]), sw),
          "< 1000 ms", "PASS" if op < 1000 and not res.get("errors") else "FAIL")
    if res.get("errors"):
        b.notes.append("page errors: " + "; ".join(res["errors"][:3]))


def run_all(b, figs):
    if "5p" in figs:
        run(b)
