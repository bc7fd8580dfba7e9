"""exec_a.py: works, then replaces itself with exec_b.py (same pid)."""
import os
import sys
import time


def work_a():
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass


work_a()
print("a", os.getpid(), flush=True)
here = os.path.dirname(os.path.abspath(__file__))
os.execv(sys.executable, [sys.executable, os.path.join(here, "exec_b.py")])
