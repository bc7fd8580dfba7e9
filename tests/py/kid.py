"""A Python child: kid.py TAG [SECONDS] burns CPU in a function named after
TAG for SECONDS (default 0.3)."""
import sys
import time

tag = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3


def burn():
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


# A function whose name carries the tag, so the report shows who ran.
ns = {"burn": burn}
exec(f"def kid_{tag}():\n    burn()\n", ns)
ns[f"kid_{tag}"]()
