"""The "shallow_static" workload: deep_static's twin with one frame: the
module sleeps, so every sample sees the same one-frame stack.  The
difference between the two is what depth alone costs a sample, with the
process asleep in both (a sleeping process's sampler is woken from an idle
CPU, which costs more than beside a running thread: basic runs).

    python shallow_static.py SECONDS
"""
import sys
import time

time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
