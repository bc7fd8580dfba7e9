"""Calls C functions in each way a call is compiled, each from a function
of its own that calls nothing else in its loop: ccalls.py SECONDS.

Each of the six leaf sites runs for SECONDS/8, then one function sorts
with a Python key that spins (the C function calling Python back) for
SECONDS/4.  The loop machinery (for over a range, +=, a comparison) is
interpreted, not called: any other C function under these frames would be
a wrong name."""
import re
import sys
import time
import zlib

SECONDS = float(sys.argv[1])
END = [0.0]


def until(part):
    END[0] = time.monotonic() + SECONDS * part


def napper():                  # CALL, a module's function (time.sleep)
    n = 0
    while n < 10 ** 9:
        time.sleep(0.002)
        n += 1
        if n % 8 == 0 and time.monotonic() > END[0]:
            return n


def joiner(parts):             # CALL on a method descriptor (str.join)
    n = 0
    while n < 10 ** 9:
        n += len(",".join(parts))
        if n % 64 == 0 and time.monotonic() > END[0]:
            return n


def matcher(text):             # a bound method kept in a variable
    match = re.compile(r"(a|b)*c").match
    n = 0
    while n < 10 ** 9:
        match(text)
        n += 1
        if time.monotonic() > END[0]:
            return n


def squeezer(data):            # CALL_KW, under a try and in an except
    n = 0
    while n < 10 ** 9:
        try:
            n += len(zlib.compress(data, level=9)) > 0
            raise ValueError
        except ValueError:
            n += len(zlib.compress(data, level=9)) > 0
        if time.monotonic() > END[0]:
            return n


def spreader(args):            # CALL_FUNCTION_EX
    n = 0
    while n < 10 ** 9:
        n += len(zlib.compress(*args)) > 0
        if time.monotonic() > END[0]:
            return n


def nester(text):              # a call as an argument of another's
    n = 0
    while n < 10 ** 9:
        n += max(0, len(text.upper())) > 0
        if time.monotonic() > END[0]:
            return n


def spin_key(v):               # called back by sorted
    t = time.perf_counter() + 0.0005
    while time.perf_counter() < t:
        pass
    return v


def sort_by_key(data):
    n = 0
    while n < 10 ** 9:
        sorted(data, key=spin_key)
        n += 1
        if time.monotonic() > END[0]:
            return n


text = "ab" * 4000
blob = bytes(range(256)) * 400
for fn, arg in ((napper, None), (joiner, [str(i) for i in range(3000)]),
                (matcher, text), (squeezer, blob), (spreader, (blob, 9)),
                (nester, text * 10)):
    until(1 / 8)
    fn(arg) if arg is not None else fn()
until(1 / 4)
sort_by_key(list(range(20)))
print("done")
