"""Threads with the names programs give them: thread_names.py SECONDS.

Runs, each spinning in spin_named for SECONDS: a thread named
"io-worker-1"; one with a 40-character name; one with threading's default
name ("Thread-N (spin_named)"); one that starts as "before-rename" and
renames itself "after-rename" a third of the way in; and the two workers
of a ThreadPoolExecutor with the prefix "pool" ("pool_0", "pool_1"); the
main thread renames itself "main-renamed" first.
Prints "thread TID NAME" for each, with the name it ended with.
"""
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SECONDS = float(sys.argv[1])
threading.current_thread().name = "main-renamed"
lock = threading.Lock()
seen = []


def spin_named(seconds, rename=None):
    end = time.perf_counter() + seconds
    n = 0
    if rename:
        while time.perf_counter() < end - seconds * 2 / 3:
            n += 1
        threading.current_thread().name = rename
    while time.perf_counter() < end:
        n += 1
    me = threading.current_thread()
    with lock:
        seen.append("thread %d %s" % (threading.get_native_id(), me.name))


threads = [
    threading.Thread(target=spin_named, args=(SECONDS,), name="io-worker-1"),
    threading.Thread(target=spin_named, args=(SECONDS,),
                     name="a-thread-name-of-forty-characters-012345"),
    threading.Thread(target=spin_named, args=(SECONDS,)),
    threading.Thread(target=spin_named, args=(SECONDS * 1.5, "after-rename"),
                     name="before-rename"),
]
for t in threads:
    t.start()
with ThreadPoolExecutor(max_workers=2, thread_name_prefix="pool") as ex:
    for f in [ex.submit(spin_named, SECONDS) for _ in range(2)]:
        f.result()
for t in threads:
    t.join()
seen.append("thread %d %s" % (threading.get_native_id(),
                               threading.current_thread().name))
print("\n".join(seen))
