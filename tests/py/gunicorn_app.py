"""A WSGI app for the pre-fork server test: each request burns a little CPU
in handle_request, the function the report must show in the workers, and
answers with the worker's pid, so that the client can count the requests
each worker served."""
import os
import time


def handle_request(environ):
    end = time.perf_counter() + 0.01
    n = 0
    while time.perf_counter() < end:
        n += 1
    return n


def app(environ, start_response):
    body = ("%d %d" % (os.getpid(), handle_request(environ))).encode()
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
