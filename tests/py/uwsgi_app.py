"""A WSGI app for the uWSGI tests: each request burns about 20 ms of CPU in
hot, the function the report must show in the workers, and answers
"PID RESULT SECONDS" (the worker's pid, what hot computed, the time it
took by the worker's clock)."""
import os
import time


def hot(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def application(environ, start_response):
    t = time.perf_counter()
    r = hot(100000)
    body = ("%d %d %.6f\n" % (os.getpid(), r, time.perf_counter() - t)).encode()
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
