"""A tree in which three processes cannot be profiled:
unprofiled_tree.py SCRATCH_DIR.

One child runs as nobody (uid 65534) with /usr/bin/python3, which cannot
write into a root-owned 0700 output directory; one is given an output
directory that cannot be created (a path under a regular file); one starts
with RLIMIT_SIGPENDING 0, so that the sampler cannot create its timer.
Each child writes a line to stderr and to stdout; so does the parent."""
import os
import subprocess
import sys

CHILD = ("import sys, time; time.sleep(0.3); "
         "print('%s stdout'); print('%s stderr', file=sys.stderr); "
         "time.sleep(0.2)")


def main():
    scratch = sys.argv[1]
    print("parent stderr before", file=sys.stderr, flush=True)
    subprocess.run(["/usr/bin/python3", "-c", CHILD % ("nobody", "nobody")],
                   user=65534, group=65534, extra_groups=[], cwd="/", check=True)
    blocker = os.path.join(scratch, "a-file")
    with open(blocker, "w") as f:
        f.write("not a directory\n")
    env = dict(os.environ, PYPROF_OUT=os.path.join(blocker, "out"))
    subprocess.run([sys.executable, "-c", CHILD % ("no-dir", "no-dir")],
                   env=env, check=True)
    subprocess.run(["prlimit", "--sigpending=0", sys.executable, "-c",
                    CHILD % ("no-timer", "no-timer")], check=True)
    print("parent stdout")
    print("parent stderr after", file=sys.stderr)


if __name__ == "__main__":
    main()
