"""The Celery app of the Celery test (server_drive.py): a Redis broker and
result backend at $PP_REDIS, and one task that runs hot()."""
import os

from celery import Celery

import server_jobs

app = Celery("celery_app", broker=os.environ["PP_REDIS"],
             backend=os.environ["PP_REDIS"])


@app.task
def burn(n):
    return server_jobs.hot(n)
