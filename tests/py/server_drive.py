"""Runs one of the servers or worker pools people run Python on (Debian's
packages, Debian's python3) as a user would, bounded, and says what
happened, counting the tree's Python processes by its own means:

    python3 server_drive.py SERVER PORT DIR [PREFIX...]

SERVER: uwsgi-MODE (Debian's uWSGI, a master and 2 workers on PORT running
uwsgi_app.py; MODE default, lazy (--lazy-apps), threads (--enable-threads
--threads 2, requests 4 at a time) or reload (SIGHUP to the master after
the first requests, then requests to the new workers)), celery (a prefork
worker with 2 children, Redis on 127.0.0.1:PORT+1 started here), uvicorn
(--workers 2 on PORT), dask (a LocalCluster of 2 worker processes), gevent
(monkey-patched greenlets and a subprocess) or joblib (loky, 2 workers).  PREFIX: the command the server runs under
(pyprof-run ... --), none for a plain run.  DIR is scratch space.  Every
job calls hot() (server_jobs.py), which reports its pid and its time by its
own clock.  Prints, one per line:

    results R...          the distinct results hot computed
    served PID N SECONDS  per process: calls of hot, and their time
    python PID            every Python process of the tree seen alive in two
                          scans of /proc at least 100 ms apart
    launched PID          the process the driver started
    master PID            uWSGI's master (its pid file)
    status N              the launched command's exit status (-N: signal)
    left N                processes of the tree still alive afterwards
    hung                  if the command did not end when told to
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

server, port, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
prefix = sys.argv[4:]
here = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
deadline = time.time() + 90
served = {}
results = set()
lock = threading.Lock()


def note(pid, res, secs):
    with lock:
        n, s = served.get(int(pid), (0, 0.0))
        served[int(pid)] = (n + 1, s + float(secs))
        results.add(str(res))


class Watch(threading.Thread):
    """Scans /proc every 10 ms for the launched process's descendants.  A
    process counts as Python when its executable was python3 in two scans
    at least 100 ms apart and it was never seen running something else
    after that (a fork child that execs another program at once is not
    one).  What a process ran before it was first seen as Python does not
    count: pyprof-run's child is pyprof-run until it execs the command,
    and a scan that falls in that moment (a busy machine widens it) must
    not hide the command's process."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.stop = root, False
        self.tree = {root}
        self.seen = {}        # pid -> (first, last) time seen as python
        self.other = set()    # pids seen running something else

    def scan(self):
        kids = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
                ppid = int(st[st.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
        todo = list(self.tree)
        while todo:
            for c in kids.get(todo.pop(), ()):
                if c not in self.tree:
                    self.tree.add(c)
                    todo.append(c)
        now = time.monotonic()
        for pid in list(self.tree):
            try:
                exe = os.path.basename(os.readlink("/proc/%d/exe" % pid))
            except OSError:
                continue
            if exe.startswith("python"):
                first = self.seen.get(pid, (now, now))[0]
                self.seen[pid] = (first, now)
            elif pid in self.seen:
                self.other.add(pid)

    def run(self):
        while not self.stop:
            self.scan()
            time.sleep(0.01)

    def pythons(self):
        return sorted(p for p, (a, b) in self.seen.items()
                      if b - a >= 0.1 and p not in self.other)

    def alive(self):
        n = 0
        for pid in self.tree:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        n += 1
            except OSError:
                pass
        return n


def launch(cmd, **kw):
    proc = subprocess.Popen(prefix + cmd, start_new_session=True, **kw)
    watch = Watch(proc.pid)
    watch.start()
    return proc, watch


def finish(proc, watch, sig=None, out=None, master=None):
    hung = False
    if sig is not None:
        proc.send_signal(sig)
    try:
        status = proc.wait(timeout=max(5, deadline - time.time()))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        status = proc.wait()
        hung = True
    # Stragglers (resource trackers) end on their own a moment later.
    end = time.time() + 5
    while watch.alive() and time.time() < end:
        time.sleep(0.05)
    watch.stop = True
    watch.join()
    if out:
        for line in out.splitlines():
            if line.startswith("served "):
                _, pid, res, secs = line.split()
                note(pid, res, secs)
    print("results " + " ".join(sorted(results)))
    for pid, (n, secs) in sorted(served.items()):
        print("served %d %d %.3f" % (pid, n, secs))
    for pid in watch.pythons():
        print("python %d" % pid)
    print("launched %d" % proc.pid)
    if master:
        print("master %d" % master)
    print("status %d" % status)
    print("left %d" % watch.alive())
    if hung:
        print("hung")


def wait_port(p):
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", p), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nothing listens on port %d" % p)


def script(name):
    """A job that is a Python program of its own, run as the command."""
    proc, watch = launch([PY, os.path.join(here, name)], stdout=subprocess.PIPE,
                         text=True)
    out = proc.communicate(timeout=max(5, deadline - time.time()))[0]
    finish(proc, watch, out=out)


def get():
    """One request to the server on PORT, which answers PID RESULT SECONDS;
    returns the pid that served it."""
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as r:
        pid, res, secs = r.read().decode().split()
    note(pid, res, secs)
    return int(pid)


def burst(n, width):
    """n requests, width at a time."""
    def worker():
        for _ in range(n // width):
            if time.time() < deadline:
                get()
    ts = [threading.Thread(target=worker) for _ in range(width)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def uvicorn():
    proc, watch = launch([PY, "-m", "uvicorn", "--workers", "2", "--host",
                          "127.0.0.1", "--port", str(port), "--app-dir", here,
                          "--log-level", "warning", "asgi_app:app"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    burst(40, 4)
    finish(proc, watch, signal.SIGTERM)


def uwsgi(mode):
    pidfile = os.path.join(tmp, "uwsgi.pid")
    extra = {"default": [], "lazy": ["--lazy-apps"], "reload": [],
             "threads": ["--enable-threads", "--threads", "2"]}[mode]
    proc, watch = launch(["uwsgi", "--plugin", "python3", "--master",
                          "--processes", "2", "--http-socket",
                          "127.0.0.1:%d" % port, "--wsgi-file",
                          os.path.join(here, "uwsgi_app.py"), "--die-on-term",
                          "--disable-logging", "--pidfile", pidfile] + extra,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.time() < deadline:
        try:
            get()
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit("uwsgi never answered")
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
    finish(proc, watch, signal.SIGTERM, master=master)


def celery():
    redis = subprocess.Popen(["redis-server", "--port", str(port + 1), "--bind",
                              "127.0.0.1", "--save", "", "--appendonly", "no"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port + 1)
        url = "redis://127.0.0.1:%d/0" % (port + 1)
        env = dict(os.environ, PP_REDIS=url, PYTHONPATH=here)
        os.environ["PP_REDIS"] = url
        sys.path.insert(0, here)
        from celery_app import burn
        proc, watch = launch([PY, "-m", "celery", "-A", "celery_app", "worker",
                              "--pool", "prefork", "--concurrency", "2",
                              "--loglevel", "WARNING", "--without-gossip",
                              "--without-mingle", "--without-heartbeat"],
                             env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        pending = [burn.delay(100000) for _ in range(40)]
        for p in pending:
            note(*p.get(timeout=max(5, deadline - time.time())))
        # A result left to the collector unsubscribes from Redis then.
        del pending, p
        import gc
        gc.collect()
        finish(proc, watch, signal.SIGTERM)
    finally:
        redis.terminate()
        redis.wait()


if server.startswith("uwsgi-"):
    uwsgi(server[6:])
else:
    {"celery": celery, "uvicorn": uvicorn,
     "dask": lambda: script("dask_job.py"),
     "gevent": lambda: script("gevent_job.py"),
     "joblib": lambda: script("joblib_job.py")}[server]()
