"""Where descend.py's stack stood at the moments pyprof sampled it.

    python depth_at.py GECKO_JSON LOG

GECKO_JSON: pyprof-merge --format gecko of one descend.py run; LOG: what
descend.py wrote with its LOG argument.  For every sample of the main
thread taken while descend.py was descending (between the first call and
the last return of one descent), compares how many descend frames the
sample holds with how deep the program's own clock says the stack stood at
the sample's tick, per 100 frames (1-100 ... 501-600).  Prints

    at-tick N S0/T0 ... S5/T5 distance D

N samples; Si the share of them pyprof put in bucket i, Ti the share the
program's log puts there; D the total variation distance between the two.
A sample's tick is when its stack was read (pyprof(5), TICK), to the
microsecond and within a few hundred nanoseconds of that read, so a sample
taken as the stack crossed a bucket's edge can fall either side of it.
"""
import bisect
import json
import sys
from array import array

DEPTH = 600
BUCKETS = 6


def load_log(path):
    with open(path, "rb") as f:
        head = f.readline().split()
        offset, per = int(head[1]), int(head[3])
        times = array("q")
        times.frombytes(f.read())
    return offset, per, times


def depth_at(t, per, times):
    """The stack's depth at time t (program clock), 0 outside a descent."""
    i = bisect.bisect_right(times, t) - 1
    if i < 0 or i + 1 >= len(times):
        return 0
    k = i % per                   # which reading of its descent
    if k == per - 1:              # between a descent's last return and the next
        return 0
    first = k * 10                # events first .. first+9 (the last: to 1199)
    mid = first + 5 if k < per - 2 else (first + 1199) // 2
    return mid + 1 if mid < DEPTH else 2 * DEPTH - 1 - mid


def main(gecko_path, log_path):
    offset, per, times = load_log(log_path)
    g = json.load(open(gecko_path))
    proc = max(g["processes"], key=lambda p: sum(len(t["samples"]["data"])
                                                 for t in p["threads"]))
    start_ns = round(proc["meta"]["startTime"] * 1e6)
    thread = max(proc["threads"], key=lambda t: len(t["samples"]["data"]))
    strings = thread["stringTable"]
    is_descend = [strings[f[0]].startswith("descend ")
                  for f in thread["frameTable"]["data"]]
    stacks = thread["stackTable"]["data"]
    count = [0] * len(stacks)     # descend frames in each stack, by index
    for i, (prefix, frame) in enumerate(stacks):
        count[i] = (count[prefix] if prefix is not None else 0) + is_descend[frame]
    got = [0] * BUCKETS
    want = [0] * BUCKETS
    n = 0
    for stack, ms, _ in thread["samples"]["data"]:
        t = start_ns + round(ms * 1e6) - offset
        true = depth_at(t, per, times)
        if stack is None or not true:
            continue
        d = count[stack]
        got[min(BUCKETS - 1, max(d - 1, 0) // 100)] += 1
        want[min(BUCKETS - 1, (true - 1) // 100)] += 1
        n += 1
    total = n or 1
    tv = sum(abs(got[b] - want[b]) for b in range(BUCKETS)) / 2 / total
    print("at-tick %d %s distance %.3f" % (
        n, " ".join("%.2f/%.2f" % (got[b] / total, want[b] / total)
                    for b in range(BUCKETS)), tv))


main(sys.argv[1], sys.argv[2])
