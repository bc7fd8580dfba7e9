"""The joblib test's job (server_drive.py): 40 calls of hot() on loky's 2
worker processes, each printed as a served line."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_jobs  # noqa: E402

if __name__ == "__main__":
    from joblib import Parallel, delayed
    # loky keeps its executor between calls: a first call starts both
    # workers, so that one started late does not leave all the work to the
    # other (which is still allowed: the test asks for one at least).
    Parallel(n_jobs=2, backend="loky")(delayed(os.getpid)() for _ in range(4))
    for ran in Parallel(n_jobs=2, backend="loky", batch_size=1)(
            delayed(server_jobs.hot)(100000) for _ in range(40)):
        print(server_jobs.line(ran), flush=True)
