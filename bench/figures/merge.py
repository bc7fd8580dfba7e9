"""Figure 5: pyprof-merge's throughput and peak RSS on generated files
(bench/pp-gen), 5 M against 50 M samples: memory must not grow with
samples; and the HTML page of the 50 M set beside the text report.
Figure 5h: 100 hosts of 50 processes each (5,000 files, pids repeating
across hosts, each host's clock off from the others') against the same
5,000 files and samples on one host: what many hosts cost the merge.
"""
import os
import shutil
import sys
import time

from harness import log, median

FIGURES = ("5", "5h")


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

def run_hosts(b):
    hosts, per_host = 100, 50
    nfiles = hosts * per_host
    total = 5000000 if b.quick else 20000000
    label = "%d hosts x %d processes, %d M samples" % (hosts, per_host, total // 10 ** 6)
    if b.merge_ok:
        b.add("5h", "merge of " + label, "n/a", "<= x1.2 one host's time",
              "n/a (%s)" % b.merge_ok)
        return
    dirs = {}
    for h in (1, hosts):
        d = os.path.join(b.tmp, "hosts%d" % h)
        g = b.run([b.tool["pp-gen"], d, str(nfiles), str(total), "11", str(h)], timeout=900)
        if g.rc != 0:
            sys.exit("bench: pp-gen failed: " + g.err)
        dirs[h] = d
    reps = 3 if b.quick else 5
    walls = {1: [], hosts: []}
    rss = {1: [], hosts: []}
    errs, said = [], False
    out = os.path.join(b.tmp, "hosts.txt")
    for rep in range(reps):
        for h in ((1, hosts) if rep % 2 == 0 else (hosts, 1)):
            rc, wall, maxrss, err = b.run_rss([b.merge, "-o", out, dirs[h]], timeout=900)
            if rc == 0:
                walls[h].append(wall)
                rss[h].append(maxrss)
                if h == hosts:
                    with open(out) as f:
                        said = said or ("  hosts           %d " % hosts) in f.read()
            else:
                errs.append("rc %d: %s" % (rc, err.strip()[-80:]))
        log("hosts merge round %d/%d done" % (rep + 1, reps))
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
    if not walls[hosts] or not walls[1]:
        b.add("5h", "merge of " + label, "n/a", "<= x1.2 one host's time",
              "n/a (%s)" % (errs[0] if errs else "no run"))
        return
    # 5,000 files: the cost per file (open, decompress, tables) rules, not
    # the samples, so the measure is against the same files on one host.
    rate = total / median(walls[hosts])
    ratio = median(walls[hosts]) / median(walls[1])
    b.add("5h", "merge of " + label,
          "%.2f s vs %.2f s on one host (x%.2f); %.1f M samples/s, %.0f files/s" % (
              median(walls[hosts]), median(walls[1]), ratio, rate / 1e6,
              nfiles / median(walls[hosts])),
          "<= x1.2 one host's time, report says %d hosts" % hosts,
          "PASS" if ratio <= 1.2 and said else "FAIL")
    r1, rh = median(rss[1]), median(rss[hosts])
    b.add("5h", "merge peak RSS, %d hosts vs one host (same files)" % hosts,
          "%.1f MiB vs %.1f MiB (x%.2f)" % (rh / 1024, r1 / 1024, rh / r1),
          "<= x1.2", "PASS" if rh / r1 <= 1.2 else "FAIL")
    if errs:
        b.notes.append("hosts merge failures: " + "; ".join(errs[:3]))


def run_all(b, figs):
    if "5" in figs:
        run(b)
    if "5h" in figs:
        run_hosts(b)
