#!/usr/bin/env python3
"""Summarizes a campaign (tests/campaign/campaign.sh): for each test, each
value it judged and each interpreter group, the spread of the values in
quiet runs and in runs beside hogs, how many broke their limit, and the
margin in standard deviations of the quiet runs.  Markdown on stdout.

    tests/campaign/table.py OUT [OUT...]

An OUT is a campaign's directory (its measures.tsv) or a measures file
kept from one, plain or xz-compressed (tests/campaign/measures/).
"""
import collections
import lzma
import os
import statistics
import sys


def main(dirs):
    rows = collections.defaultdict(lambda: {"quiet": [], "hogs": []})
    limits = {}
    runs = {"quiet": set(), "hogs": set()}
    for d in dirs:
        path = os.path.join(d, "measures.tsv") if os.path.isdir(d) else d
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 7:
                    continue
                tag, test, py, what, value, op, limit = parts
                kind = "hogs" if tag.startswith("hogs") else "quiet"
                runs[kind].add((d, tag))
                key = (test, what, op)
                rows[key][kind].append((float(value), float(limit), py))
                limits.setdefault(key, set()).add(float(limit))
    print("Runs: %d quiet, %d beside two hogs." % (len(runs["quiet"]), len(runs["hogs"])))
    print()
    print("| test | judged | limit | quiet: min / median / max (n) | broke | "
          "hogs: min / median / max (n) | broke | margin (sd) |")
    print("|---|---|---|---|---|---|---|---|")
    for (test, what, op), kinds in sorted(rows.items()):
        lims = sorted(limits[(test, what, op)])
        lim = ("%s %g" % (op, lims[0]) if len(lims) == 1
               else "%s %g-%g" % (op, lims[0], lims[-1]))
        cells = []
        margin = ""
        for kind in ("quiet", "hogs"):
            vals = kinds[kind]
            if not vals:
                cells += ["", ""]
                continue
            xs = [v for v, _, _ in vals]
            broke = sum(1 for v, l, _ in vals
                        if (v < l if op == ">=" else v > l))
            cells.append("%.3g / %.3g / %.3g (%d)" % (min(xs), statistics.median(xs),
                                                       max(xs), len(xs)))
            cells.append(str(broke))
            if kind == "quiet" and len(xs) >= 3:
                sd = statistics.pstdev(xs)
                gap = [(v - l if op == ">=" else l - v) for v, l, _ in vals]
                if sd > 0:
                    margin = "%.1f" % (statistics.mean(gap) / sd)
        print("| %s | %s | %s | %s | %s |" % (test, what, lim, " | ".join(cells), margin))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
