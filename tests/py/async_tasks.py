"""asyncio tasks for the task tests: the main task (asyncio's default
name) gathers two named workers that burn CPU between awaits, and an
unnamed one that mostly sleeps.

    python async_tasks.py SECONDS

Prints "tasks done" when every task has ended."""
import asyncio
import sys
import time


def burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1
    return n


async def worker(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        burn(0.004)
        await asyncio.sleep(0)


async def napper(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        await asyncio.sleep(0.01)


async def main(seconds):
    a = asyncio.create_task(worker(seconds), name="worker-a")
    b = asyncio.create_task(worker(seconds), name="worker-b")
    c = asyncio.create_task(napper(seconds))
    await asyncio.gather(a, b, c)  # GATHER
    print("tasks done")


asyncio.run(main(float(sys.argv[1])))
