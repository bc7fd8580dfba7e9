"""http_client.py PORT N: waits for 127.0.0.1:PORT, sends N requests (bounded
in count and time), prints how many succeeded."""
import sys
import time
import urllib.request

port, n = int(sys.argv[1]), int(sys.argv[2])
deadline = time.time() + 20
ok = 0
while time.time() < deadline and ok == 0:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
        ok = 1
    except OSError:
        time.sleep(0.1)
for _ in range(n - 1):
    if time.time() > deadline:
        break
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
        ok += 1
    except OSError:
        pass
print("ok", ok)
