"""asyncio tasks for the task tests: the main task (asyncio's default
name) gathers two named workers that burn CPU between awaits, and an
unnamed one that mostly sleeps; then, in a TaskGroup, a task that holds
a lock across a sleep, one that waits for that lock and then burns, and a
third worker.

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


async def holder(lock, seconds):
    async with lock:
        await asyncio.sleep(seconds)


async def locked(lock, seconds):
    async with lock:
        burn(seconds)


async def main(seconds):
    a = asyncio.create_task(worker(seconds), name="worker-a")
    b = asyncio.create_task(worker(seconds), name="worker-b")
    c = asyncio.create_task(napper(seconds))
    await asyncio.gather(a, b, c)  # GATHER
    lock = asyncio.Lock()
    if hasattr(asyncio, "TaskGroup"):
        async with asyncio.TaskGroup() as tg:  # GROUP
            tg.create_task(holder(lock, seconds / 4), name="holder")
            tg.create_task(locked(lock, seconds / 4), name="locked")
            tg.create_task(worker(seconds / 2), name="tg-worker")
    else:                       # 3.10: no TaskGroup, the same tasks gathered
        await asyncio.gather(asyncio.create_task(holder(lock, seconds / 4)),
                             asyncio.create_task(locked(lock, seconds / 4)),
                             asyncio.create_task(worker(seconds / 2)))
    print("tasks done")


asyncio.run(main(float(sys.argv[1])))
