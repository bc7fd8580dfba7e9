"""Figure 5: pyprof-merge's throughput and peak RSS on generated files
(bench/pp-gen), 5 M against 50 M samples: memory must not grow with
samples; and the HTML page of the 50 M set beside the text report.
"""
import os
import shutil
import sys
import time

from harness import log, median

FIGURES = ("5",)


def run(b):
    nfiles = 100 if b.quick else 1000
    big = 5000000 if b.quick else 50000000
    small = big // 10
    label = "%d files" % nfiles
    if b.merge_ok:
        b.add(5, "merge throughput, %s, %d M samples" % (label, big // 10 ** 6), "n/a",
                 ">= 20 M/s", "n/a (%s)" % b.merge_ok)
        b.add(5, "merge peak RSS %d M vs %d M samples" % (small // 10 ** 6, big // 10 ** 6),
                 "n/a", "no growth", "n/a (%s)" % b.merge_ok)
        return
    dirs = {}
    for n in (small, big):
        d = os.path.join(b.tmp, "merge%d" % n)
        t0 = time.perf_counter()
        g = b.run([b.tool["pp-gen"], d, str(nfiles), str(n), "7"], timeout=900)
        if g.rc != 0:
            sys.exit("bench: pp-gen failed: " + g.err)
        log("generated %s in %.1f s: %s" % (d, time.perf_counter() - t0, g.out.strip()))
        dirs[n] = d
    reps = 3 if b.quick else 5
    walls = {small: [], big: []}
    rss = {small: [], big: []}
    errs = []
    html_walls, html_rss = [], []
    page = os.path.join(b.tmp, "merge.html")
    for rep in range(reps):
        for n in ((small, big) if rep % 2 == 0 else (big, small)):
            rc, wall, maxrss, err = b.run_rss([b.merge, dirs[n]], timeout=900)
            if rc == 0:
                walls[n].append(wall)
                rss[n].append(maxrss)
            else:
                errs.append("rc %d: %s" % (rc, err.strip()[-80:]))
        # The HTML page of the big set, in the same rounds as the text
        # report it is compared with.
        rc, wall, maxrss, err = b.run_rss([b.merge, "-f", "html", "-o", page, dirs[big]],
                                          timeout=900)
        if rc == 0:
            html_walls.append(wall)
            html_rss.append(maxrss)
        else:
            errs.append("html rc %d: %s" % (rc, err.strip()[-80:]))
        log("merge round %d/%d done" % (rep + 1, reps))
        if rep == 1 and walls[big] and min(walls[big]) > 60:
            log("merge is slow: stopping after 2 rounds")
            break
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
    if not walls[big] or not walls[small]:
        why = errs[0] if errs else "no run"
        b.add(5, "merge throughput, %s" % label, "n/a", ">= 20 M/s", "n/a (%s)" % why)
        return
    rate = big / median(walls[big])
    rate_s = small / median(walls[small])
    b.add(5, "merge throughput, %s, %d M samples" % (label, big // 10 ** 6),
             "%.1f M samples/s (%.2f s; %d M: %.1f M/s)" % (
                 rate / 1e6, median(walls[big]), small // 10 ** 6, rate_s / 1e6),
             ">= 20 M/s", "PASS" if rate >= 20e6 else "FAIL")
    r_small, r_big = median(rss[small]), median(rss[big])
    grow = r_big / r_small
    b.add(5, "merge peak RSS %d M vs %d M samples" % (small // 10 ** 6, big // 10 ** 6),
             "%.1f MiB vs %.1f MiB (x%.2f)" % (r_small / 1024, r_big / 1024, grow),
             "no growth (<= x1.2)", "PASS" if grow <= 1.2 else "FAIL")
    if html_walls:
        ratio = median(html_walls) / median(walls[big])
        size = os.path.getsize(page) if os.path.exists(page) else 0
        b.add(5, "HTML page vs text report, %s, %d M samples" % (label, big // 10 ** 6),
              "%.2f s vs %.2f s (x%.2f); page %.1f MB; RSS %.0f vs %.0f MiB" % (
                  median(html_walls), median(walls[big]), ratio, size / 1e6,
                  median(html_rss) / 1024, r_big / 1024),
              "<= x1.5 the text report's time", "PASS" if ratio <= 1.5 else "FAIL")
    if errs:
        b.notes.append("merge failures: " + "; ".join(errs[:3]))

def run_all(b, figs):
    run(b)
