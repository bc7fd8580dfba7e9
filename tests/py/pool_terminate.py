"""Pool.terminate() on busy workers: they end by SIGTERM."""
import multiprocessing
import time


def busy_worker(_):
    end = time.time() + 60
    x = 0
    while time.time() < end:
        x += 1
    return x


def main():
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(3)
    pool.map_async(busy_worker, range(3))
    time.sleep(1.2)
    pool.terminate()
    pool.join()
    print("terminated")


if __name__ == "__main__":
    main()
