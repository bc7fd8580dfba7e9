"""Starts N short threads, WAVE at a time, each spinning briefly in tiny():
short_threads.py N WAVE.  Prints "started N"."""
import sys
import threading

N = int(sys.argv[1])
WAVE = int(sys.argv[2])


def tiny():
    n = 0
    for i in range(2000):
        n += i


started = 0
while started < N:
    wave = [threading.Thread(target=tiny) for _ in range(min(WAVE, N - started))]
    for t in wave:
        t.start()
    for t in wave:
        t.join()
    started += len(wave)
print("started", started)
