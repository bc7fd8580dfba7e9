"""Runs uWSGI (Debian's uwsgi-plugin-python3) with a master and 2 workers
on 127.0.0.1, sends it a bounded number of requests and stops it as a
start/stop script would, then says what happened.

    python3 uwsgi_drive.py MODE PORT DIR [PREFIX...]

MODE: default, lazy (--lazy-apps), threads (--enable-threads --threads 2,
requests sent 4 at a time) or reload (SIGHUP to the master after the first
requests, then requests to the new workers).  PREFIX: the command uWSGI
runs under (pyprof-run ... --), none for a plain run.  DIR holds the pid
file.  Prints, one per line:

    results R...          the distinct results hot computed
    served PID N SECONDS  per worker: requests, and hot's time by its clock
    master PID
    status N              the launched command's exit status (-N: signal)
    left N                processes of the run still alive afterwards
"""
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

mode, port, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
prefix = sys.argv[4:]
app = os.path.join(os.path.dirname(os.path.abspath(__file__)), "uwsgi_app.py")
pidfile = os.path.join(tmp, "uwsgi.pid")
extra = {"default": [], "lazy": ["--lazy-apps"], "reload": [],
         "threads": ["--enable-threads", "--threads", "2"]}[mode]
cmd = prefix + ["uwsgi", "--plugin", "python3", "--master", "--processes", "2",
                "--http-socket", "127.0.0.1:%d" % port, "--wsgi-file", app,
                "--die-on-term", "--disable-logging", "--pidfile", pidfile] + extra
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        start_new_session=True)
deadline = time.time() + 60
lock = threading.Lock()
served = {}
results = set()


def get():
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as r:
        pid, res, secs = r.read().decode().split()
    with lock:
        n, s = served.get(int(pid), (0, 0.0))
        served[int(pid)] = (n + 1, s + float(secs))
        results.add(res)
    return int(pid)


def wait_ready():
    while time.time() < deadline:
        try:
            return get()
        except OSError:
            time.sleep(0.1)
    raise SystemExit("uwsgi never answered")


def burst(n, width):
    def worker(k):
        for _ in range(k):
            if time.time() < deadline:
                get()
    ts = [threading.Thread(target=worker, args=(n // width,)) for _ in range(width)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


wait_ready()
burst(40, 4 if mode == "threads" else 1)
master = int(open(pidfile).read())
if mode == "reload":
    before = set(served)
    os.kill(master, signal.SIGHUP)
    while time.time() < deadline:
        try:
            if get() not in before:
                break
        except OSError:
            time.sleep(0.1)
    burst(40, 1)
pids = set(served) | {master}
proc.send_signal(signal.SIGTERM)
try:
    status = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    status = proc.wait()
    print("hung")
time.sleep(0.5)
left = 0
for pid in pids:
    try:
        os.kill(pid, 0)
        left += 1
    except OSError:
        pass
print("results " + " ".join(sorted(results)))
for pid, (n, secs) in sorted(served.items()):
    print("served %d %d %.3f" % (pid, n, secs))
print("master %d" % master)
print("status %d" % status)
print("left %d" % left)
