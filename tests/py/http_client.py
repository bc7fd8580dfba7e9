"""http_client.py PORT N: waits for 127.0.0.1:PORT, sends N requests (bounded
in count and time), prints how many succeeded, then, for an answer that
starts with a pid (tests/py/gunicorn_app.py), "served PID COUNT" for each
process that answered."""
import collections
import sys
import time
import urllib.request

port, n = int(sys.argv[1]), int(sys.argv[2])
deadline = time.time() + 20
ok = 0
served = collections.Counter()


def get():
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
    first = body.split()[0] if body.split() else b""
    if first.isdigit():
        served[int(first)] += 1


while time.time() < deadline and ok == 0:
    try:
        get()
        ok = 1
    except OSError:
        time.sleep(0.1)
for _ in range(n - 1):
    if time.time() > deadline:
        break
    try:
        get()
        ok += 1
    except OSError:
        pass
print("ok", ok)
for pid, count in sorted(served.items()):
    print("served", pid, count)
