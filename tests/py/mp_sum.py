"""line_profiler PR 431's example: Pool(3) summing 1..N, workers burning CPU.

Usage: mp_sum.py START_METHOD
"""
import multiprocessing
import sys


def sum_worker(nums):
    total = 0
    for _ in range(40):
        for n in nums:
            total += n
    return total // 40


def wait_for_all(barrier):
    barrier.wait()


def sum_parallel(nums, nprocs, method):
    # More chunks than workers, one per task, and every worker waits for the
    # others before taking one, so that each gets work whatever the start
    # method costs.
    chunks = [nums[i::3 * nprocs] for i in range(3 * nprocs)]
    ctx = multiprocessing.get_context(method)
    barrier = ctx.Barrier(nprocs)
    with ctx.Pool(nprocs, initializer=wait_for_all, initargs=(barrier,)) as pool:
        return sum(pool.map(sum_worker, chunks, chunksize=1))


def main():
    method = sys.argv[1]
    nums = list(range(1, 150001))
    parallel = sum_parallel(nums, 3, method)
    # The parent's own call comes second: on an overloaded machine a new
    # process's sampler may get little CPU in its first moments.
    serial = sum_worker(nums)
    print(f"sum {serial} {parallel}")


if __name__ == "__main__":
    main()
