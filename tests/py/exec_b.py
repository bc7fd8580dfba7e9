"""exec_b.py: the program exec_a.py becomes."""
import os
import time


def work_b():
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass


work_b()
print("b", os.getpid())
