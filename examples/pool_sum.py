"""A small multi-process program for the README demo.

The parent starts a multiprocessing pool of 3 workers that burn CPU in
sum_worker, then runs a Python child through subprocess, the way many
real programs mix the two.
"""
import multiprocessing
import subprocess
import sys


def sum_worker(nums):
    total = 0
    for _ in range(150):
        for n in nums:
            total += n * n % 7
    return total


def sum_parallel(nums, nprocs):
    chunks = [nums[i::nprocs] for i in range(nprocs)]
    with multiprocessing.Pool(nprocs) as pool:
        return sum(pool.map(sum_worker, chunks))


def main():
    nums = list(range(1, 200001))
    print("pool sum:", sum_parallel(nums, 3))
    child = "import math; print('child sum:', sum(math.isqrt(i) for i in range(3_000_000)))"
    subprocess.run([sys.executable, "-c", child], check=True)


if __name__ == "__main__":
    main()
