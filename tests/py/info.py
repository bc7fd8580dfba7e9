"""Prints what the report's header should say about this process, then
burns CPU briefly: info.py SECONDS [ARGS...].  Output lines:
pid=, ppid=, version=, executable=, exe=."""
import os
import platform
import sys

from burn import burn

print("pid=%d" % os.getpid())
print("ppid=%d" % os.getppid())
print("version=%s" % platform.python_version())
print("executable=%s" % sys.executable)
print("exe=%s" % os.path.realpath("/proc/self/exe"))
sys.stdout.flush()
burn(float(sys.argv[1]))
