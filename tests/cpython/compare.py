"""Compares two runs of CPython's regression tests, one plain and one under
pyprof-run, test case by test case; part of `make check-cpython`
(tests/cpython/check-cpython.sh, README "CPython's own tests").

    python compare.py --version 3.13.0 --known known.txt \\
        plain.xml plain.log pyprof.xml pyprof.log
    python compare.py --version 3.13.0 --known known.txt --ignore-patterns

Inputs are what `python -m test -j2 --junit-xml X.xml ... > X.log` leaves:
the JUnit XML gives one outcome per test case (passed, failure, error,
skipped, expected failure, unexpected success); the log gives one outcome
per test file (passed, failed, env changed, skipped, timed out, crashed
...), which also covers what the XML cannot: a file whose worker hung or
died has no test cases in the XML at all, and a failing subTest leaves an
unnamed test case (its test then counts as absent).

known.txt (see its header) lists, per interpreter version, what fails or
hangs plainly on this machine, what is flaky, and differences waiting for a
fix.  Exit status: 0 when every outcome is the same in both runs or the
difference is listed as flaky or waiting, 1 otherwise, 2 on bad input.
Runs under the interpreter being tested (3.10 or later).
"""
import argparse
import fnmatch
import re
import sys
import xml.etree.ElementTree as ET

KINDS = ("ignore", "fails", "flaky", "differs")
ABSENT = "(absent)"


class Entry:
    def __init__(self, kind, versions, pattern, reason, where):
        self.kind, self.versions, self.pattern = kind, versions, pattern
        self.reason, self.where = reason, where
        self.used = False

    def applies_to(self, version):
        return any(v == "*" or version == v or version.startswith(v + ".")
                   for v in self.versions)

    def matches(self, key):
        return fnmatch.fnmatchcase(key, self.pattern)


def read_known(path, version):
    """Entries of known.txt for this version: 'KIND VERSIONS PATTERN' lines,
    each after the comment lines that give its reason."""
    entries, reason = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#") or not line.strip():
                if line.startswith("# ") and not line.startswith("# ---"):
                    reason.append(line[2:])
                elif not line.strip():
                    reason = []
                continue
            fields = line.split()
            if len(fields) != 3 or fields[0] not in KINDS:
                sys.exit("%s:%d: expected 'KIND VERSIONS PATTERN' with KIND "
                         "one of %s, got %r" % (path, n, ", ".join(KINDS), line))
            if not reason:
                sys.exit("%s:%d: %s has no reason (comment lines above it)"
                         % (path, n, fields[2]))
            e = Entry(fields[0], fields[1].split(","), fields[2],
                      " ".join(reason), "%s:%d" % (path, n))
            if e.applies_to(version):
                entries.append(e)
    return entries


def case_outcome(tc):
    for child, outcome in (("error", "error"), ("failure", "failure"),
                           ("skipped", "skipped"),
                           ("output", "expected failure")):
        if tc.find(child) is not None:
            return outcome
    o = tc.find("outcome")
    if o is not None and o.text == "UNEXPECTED_SUCCESS":
        return "unexpected success"
    return "passed"


def read_cases(path):
    """{test id: outcome}; unnamed test cases (a failed subTest) are left
    out, so their test shows as absent."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("compare: %s: %s (the run wrote no JUnit XML: counted as no "
              "test cases)" % (path, e))
        return {}
    cases = {}
    for tc in root.iter("testcase"):
        name = tc.get("name")
        if name:
            cases[name] = case_outcome(tc)
    return cases


# "0:01:02 load avg: 1.23 [ 3/25/1] test_os failed (2 errors) (1 min 2 sec)
#  -- running (1): test_x (30.1 sec)"
RESULT = re.compile(r"^(?:\d+:\d\d:\d\d )?(?:load avg: [\d.]+ )?"
                    r"\[\s*\d+/\d+(?:/\d+)?\] (test[\w.]*) (.*)$")
DURATION = re.compile(r" \((?:\d+(?:\.\d+)? (?:hour|min|sec|ms) ?)+\)$")


def file_outcome(text):
    text = text.split(" -- ")[0].strip()
    text = DURATION.sub("", text)
    if text.startswith("failed (env changed)"):
        return "env changed"
    if text.startswith("failed"):
        return "failed"
    return text


def read_files(path):
    """{test file: outcome} from the per-file result lines of the log."""
    files = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = RESULT.match(line.rstrip("\n"))
                if m:
                    files[m.group(1)] = file_outcome(m.group(2))
    except OSError as e:
        sys.exit("compare: %s: %s" % (path, e.strerror))
    return files


def file_of(case, files):
    """The test file a test id belongs to: the longest file name that
    prefixes it ('test.test_multiprocessing_fork.test_processes.X.y')."""
    best = ""
    for f in files:
        if (case.startswith("test." + f + ".") and len(f) > len(best)):
            best = f
    if best:
        return best
    parts = case.split(".")
    return parts[1] if len(parts) > 2 else case


def find(entries, key, kinds):
    for e in entries:
        if e.kind in kinds and e.matches(key):
            e.used = True
            return e
    return None


def ignore_patterns(entries):
    for e in entries:
        if e.kind == "ignore":
            print(e.pattern)


def compare(args, entries):
    plain_cases, pyprof_cases = read_cases(args.plain_xml), read_cases(args.pyprof_xml)
    plain_files, pyprof_files = read_files(args.plain_log), read_files(args.pyprof_log)
    if not plain_files and not pyprof_files:
        print("compare: no test file results in %s or %s" % (args.plain_log,
                                                             args.pyprof_log))
        return 1
    files = set(plain_files) | set(pyprof_files)

    unexpected, accepted, notes = [], [], []
    listed_failures = set()     # files with a listed failing test case

    def judge(key, a, b):
        if a == b:
            if a in ("passed", "skipped", "expected failure", "resource denied"):
                return True
            if find(entries, key, ("fails", "ignore", "flaky")):
                listed_failures.add(file_of(key, files))
            elif key not in listed_failures:
                notes.append("%s: %s in both runs, and not listed in %s as "
                             "failing plainly" % (key, a, args.known))
            return True
        e = find(entries, key, ("flaky", "differs"))
        line = "%s: plain %s, pyprof %s" % (key, a, b)
        if e:
            accepted.append("%s  [%s, %s: %s]" % (line, e.kind, e.where, e.reason))
        else:
            unexpected.append(line)
        return e is not None

    case_diff_files = {}
    for case in sorted(set(plain_cases) | set(pyprof_cases)):
        ok = judge(case, plain_cases.get(case, ABSENT),
                   pyprof_cases.get(case, ABSENT))
        if plain_cases.get(case) != pyprof_cases.get(case):
            f = file_of(case, files)
            case_diff_files[f] = case_diff_files.get(f, True) and ok
    for f in sorted(files):
        a, b = plain_files.get(f, ABSENT), pyprof_files.get(f, ABSENT)
        if a != b and case_diff_files.get(f):
            accepted.append("%s: plain %s, pyprof %s  [follows from the "
                            "listed test cases above]" % (f, a, b))
            continue
        judge(f, a, b)

    print("compare: %d test files, %d test cases (plain) / %d (pyprof)"
          % (len(files), len(plain_cases), len(pyprof_cases)))
    for title, lines in (("listed differences (accepted)", accepted),
                         ("NOTE", notes), ("DIFFERENT", unexpected)):
        for line in lines:
            print("  %s: %s" % (title, line))
    for e in entries:
        if e.kind == "differs" and not e.used:
            print("  NOTE: %s (%s) did not differ in this run: the fix it "
                  "waited for may have landed; remove the entry"
                  % (e.pattern, e.where))
        elif e.kind == "fails" and not e.used:
            print("  NOTE: %s (%s) did not fail in both runs: is the entry "
                  "still right?" % (e.pattern, e.where))
    if unexpected:
        print("compare: %d outcome(s) differ under pyprof-run" % len(unexpected))
        return 1
    print("compare: same outcomes")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", required=True,
                    help="interpreter version (selects known.txt entries)")
    ap.add_argument("--known", required=True, help="known.txt")
    ap.add_argument("--ignore-patterns", action="store_true",
                    help="print the test ids to leave out of both runs "
                         "(for --ignorefile) and exit")
    ap.add_argument("files", nargs="*",
                    metavar="plain.xml plain.log pyprof.xml pyprof.log")
    args = ap.parse_args()
    entries = read_known(args.known, args.version)
    if args.ignore_patterns:
        ignore_patterns(entries)
        return 0
    if len(args.files) != 4:
        ap.error("expected plain.xml plain.log pyprof.xml pyprof.log")
    args.plain_xml, args.plain_log, args.pyprof_xml, args.pyprof_log = args.files
    return compare(args, entries)


if __name__ == "__main__":
    sys.exit(main())
