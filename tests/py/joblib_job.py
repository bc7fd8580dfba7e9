"""The joblib test's job (server_drive.py): 40 calls of hot() on loky's 2
worker processes, each printed as a served line."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_jobs  # noqa: E402

if __name__ == "__main__":
    from joblib import Parallel, delayed
    for ran in Parallel(n_jobs=2, backend="loky")(
            delayed(server_jobs.hot)(100000) for _ in range(40)):
        print(server_jobs.line(ran), flush=True)
