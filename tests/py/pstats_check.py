"""Loads a pstats file with this interpreter's pstats and checks it the way
a user would use it: pstats_check.py FILE.

Sorts and prints (stats, callers, callees) by every sort key pstats
offers, checks that each sort put the functions in that key's order and
that every function was printed, then prints what the test compares with
the JSON report:
    TOTAL_TT <seconds>
    CALLS <total calls> <primitive calls>
    FUNC <funcname> <cc> <nc> <tt> <ct>      one per function
A failed check raises (exit status 1, the reason on stderr)."""
import io
import pstats
import sys

path = sys.argv[1]
keys = set(pstats.Stats.sort_arg_dict_default)
keys.update(k.value for k in getattr(pstats, "SortKey", []))
for key in sorted(keys):
    out = io.StringIO()
    st = pstats.Stats(path, stream=out)
    st.sort_stats(key)
    fields = pstats.Stats.sort_arg_dict_default[key][0]
    index, direction = fields[0]
    rows = [st.stats[f][:4] + f + (pstats.func_std_string(f),) for f in st.fcn_list]
    for a, b in zip(rows, rows[1:]):
        if (a[index] > b[index] if direction < 0 else a[index] < b[index]) \
                or a[index] == b[index]:
            continue
        raise SystemExit(f"sort {key!r}: {a[-1]} ({a[index]!r}) before "
                         f"{b[-1]} ({b[index]!r})")
    st.print_stats()
    st.print_callers()
    st.print_callees()
    text = out.getvalue()
    for f in st.stats:
        # pstats prints a function of file "~", line 0 (pyprof's <GC>,
        # <truncated>, <interpreter N>) as "{GC}": its own string, not
        # its name
        if f[2] not in text and pstats.func_std_string(f) not in text:
            raise SystemExit(f"sort {key!r}: {pstats.func_std_string(f)} not printed")
s = pstats.Stats(path, stream=io.StringIO())
print("TOTAL_TT %.9f" % s.total_tt)
print("CALLS %d %d" % (s.total_calls, s.prim_calls))
for f, (cc, nc, tt, ct, callers) in s.stats.items():
    print("FUNC %s %d %d %.9f %.9f" % (f[2], cc, nc, tt, ct))
