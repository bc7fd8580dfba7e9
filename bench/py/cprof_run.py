"""Runs a workload under the cProfile-per-thread approach: every thread
(main included) gets its own cProfile.Profile, enabled when the thread
starts and disabled when it ends; each thread's stats are dumped into
$BENCH_CPROFILE_DIR (default: a temporary directory) at the end.

From 3.12 on, cProfile sits on sys.monitoring, which is per interpreter:
a second Profile.enable() raises "Another profiling tool is already
active", and the main thread's profiler already sees every thread.  There
the article's approach cannot be followed as written; threads then run
under the main thread's profiler (one profiler for all threads), which is
the closest it can get, and "cprofile_mode shared" is printed.

    python cprof_run.py SCRIPT [ARGS...]
"""
import cProfile
import os
import runpy
import sys
import tempfile
import threading

profiles = []
shared = False
_lock = threading.Lock()
_orig_run = threading.Thread.run


def _profiled_run(self):
    prof = cProfile.Profile()
    try:
        prof.enable()
    except ValueError:          # 3.12+: the main profiler covers us
        global shared
        shared = True
        return _orig_run(self)
    with _lock:
        profiles.append((self.name, prof))
    try:
        _orig_run(self)
    finally:
        prof.disable()


def main():
    threading.Thread.run = _profiled_run
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    main_prof = cProfile.Profile()
    profiles.append(("MainThread", main_prof))
    main_prof.enable()
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        main_prof.disable()
        print("cprofile_mode %s" % ("shared" if shared else "per-thread"))
        out = os.environ.get("BENCH_CPROFILE_DIR") or tempfile.mkdtemp()
        for i, (name, prof) in enumerate(profiles):
            prof.dump_stats(os.path.join(out, "%s-%d.pstats" % (name, i)))


if __name__ == "__main__":
    main()
