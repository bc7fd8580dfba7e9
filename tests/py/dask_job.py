"""The Dask test's job (server_drive.py): a LocalCluster of 2 worker
processes, 40 calls of hot() spread over them, each printed as a served
line."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_jobs  # noqa: E402

if __name__ == "__main__":
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        with Client(cluster) as client:
            futures = client.map(server_jobs.hot, [100000] * 40, pure=False)
            for ran in client.gather(futures):
                print(server_jobs.line(ran), flush=True)
