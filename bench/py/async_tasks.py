"""The "async_tasks" workload: an event loop whose main task gathers
GROUPS group tasks, each gathering two leaf tasks that burn CPU in short
slices between awaits, so that nearly every tick finds a thread running a
task two awaiters deep (pyprof(7), "asyncio tasks": read from 3.14 on;
before that the same program with plain stacks).

    python async_tasks.py SECONDS [GROUPS]
"""
import asyncio
import sys
import time


def burn(n):
    x = 0
    for i in range(n):
        x += i
    return x


async def leaf(end):
    while time.monotonic() < end:
        burn(2000)
        await asyncio.sleep(0)


async def group(i, end):
    await asyncio.gather(asyncio.create_task(leaf(end), name="leaf-%d-a" % i),
                         asyncio.create_task(leaf(end), name="leaf-%d-b" % i))


async def main(seconds, groups):
    end = time.monotonic() + seconds
    await asyncio.gather(*(asyncio.create_task(group(i, end), name="group-%d" % i)
                           for i in range(groups)))


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    groups = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    asyncio.run(main(seconds, groups))
