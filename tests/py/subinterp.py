"""Work in subinterpreters beside the main one: subinterp.py SECONDS MODE.

MODE long:  two threads each run sub_burn in a subinterpreter of their own
            for SECONDS, in one call; the main thread runs main_burn.
MODE churn: the same, but each thread makes one call of 5 ms after another
            (CPython gives a thread a new thread state in the
            subinterpreter for every call).
MODE pool:  InterpreterPoolExecutor (3.14+) with two workers runs tasks of
            5 ms for SECONDS; the main thread waits for them.

Uses whichever module the interpreter has: concurrent.interpreters
(3.14+), _interpreters (3.13), _xxsubinterpreters (3.10-3.12).  Prints
"main TID", "sub TID INTERP_ID" per subinterpreter thread, and "pool TID"
per pool worker.
"""
import sys
import threading
import time

SECONDS = float(sys.argv[1])
MODE = sys.argv[2]

SUB_CODE = """
import time
def sub_burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1
sub_burn({seconds})
"""


def make_interp():
    """Returns (id, run) where run(code) runs code in a new interpreter."""
    try:
        from concurrent import interpreters
        interp = interpreters.create()
        return interp.id, interp.exec
    except ImportError:
        pass
    try:
        import _interpreters as xi
        iid = xi.create()
        return int(iid), lambda code: xi.exec(iid, code)
    except ImportError:
        import _xxsubinterpreters as xi
        iid = xi.create()
        return int(iid), lambda code: xi.run_string(iid, code)


lock = threading.Lock()
report = []


def run_in_sub(seconds, churn):
    iid, run = make_interp()
    with lock:
        report.append(f"sub {threading.get_native_id()} {iid}")
    if not churn:
        run(SUB_CODE.format(seconds=seconds))
        return
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        run(SUB_CODE.format(seconds=0.005))


def main_burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


def pool_task(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1
    return threading.get_native_id()


def pool(seconds):
    from concurrent.futures import InterpreterPoolExecutor
    tids = set()
    end = time.perf_counter() + seconds
    with InterpreterPoolExecutor(max_workers=2) as ex:
        while time.perf_counter() < end:
            tids.update(ex.map(pool_task, [0.005] * 8))
    for tid in sorted(tids):
        report.append(f"pool {tid}")


if __name__ == "__main__":
    report.append(f"main {threading.get_native_id()}")
    if MODE == "pool":
        pool(SECONDS)
    else:
        threads = [threading.Thread(target=run_in_sub,
                                    args=(SECONDS, MODE == "churn"))
                   for _ in range(2)]
        for t in threads:
            t.start()
        main_burn(SECONDS)
        for t in threads:
            t.join()
    print("\n".join(report))
