"""Pending asyncio tasks for the tasks-mode test: the main task gathers
named tasks that wait in known places, each measuring the time it spends
in its awaits there, and one that burns CPU between short sleeps:

    sleeper   asyncio.sleep(0.05), over and over          (line marked WAIT-SLEEP)
    napper    asyncio.sleep(0.3), over and over           (line marked WAIT-NAP)
    holder    holds a lock across asyncio.sleep(SECONDS/2) (line marked WAIT-HOLD)
    waiter    waits for that lock                         (line marked WAIT-LOCK)
    burner    burns CPU in 5 ms slices, sleep(0) between

    python async_wait.py SECONDS

Prints "wait NAME SECONDS" per waiting task (the time in its awaits at
its marked line) and then "waits done"."""
import asyncio
import sys
import time

waited = {}


def burn(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1
    return n


async def sleeper(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        await asyncio.sleep(0.05)  # WAIT-SLEEP
        waited["sleeper"] = waited.get("sleeper", 0) + time.perf_counter() - t


async def napper(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        await asyncio.sleep(0.3)  # WAIT-NAP
        waited["napper"] = waited.get("napper", 0) + time.perf_counter() - t


async def holder(lock, seconds):
    async with lock:
        t = time.perf_counter()
        await asyncio.sleep(seconds)  # WAIT-HOLD
        waited["holder"] = time.perf_counter() - t


async def waiter(lock):
    await asyncio.sleep(0.05)
    t = time.perf_counter()
    async with lock:  # WAIT-LOCK
        waited["waiter"] = time.perf_counter() - t


async def burner(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        burn(0.005)
        await asyncio.sleep(0)


async def main(seconds):
    lock = asyncio.Lock()
    await asyncio.gather(  # GATHER
        asyncio.create_task(sleeper(seconds), name="sleeper"),
        asyncio.create_task(napper(seconds), name="napper"),
        asyncio.create_task(holder(lock, seconds / 2), name="holder"),
        asyncio.create_task(waiter(lock), name="waiter"),
        asyncio.create_task(burner(seconds), name="burner"))
    for name in ("sleeper", "napper", "holder", "waiter"):
        print("wait %s %.6f" % (name, waited.get(name, 0)))
    print("waits done")


asyncio.run(main(float(sys.argv[1])))
