"""Queueing files for the worker and following the job: what ``evident ingest`` and the tests use."""
from __future__ import annotations

import time
from typing import Callable

from celery import Celery
from opensearchpy import OpenSearch

from workers.folder import CorpusFile, vanished
from core.index import delete_documents
from core.settings import Settings
from core.jobs import JobStatus, JobStore

POLL_SECONDS = 0.5  # how often a followed job is read: a progress bar that moves, little load on Redis


def queue_files(app: Celery, jobs: JobStore, files: list[CorpusFile], force: bool = False) -> str:
    """One job, one task per file; returns the job id."""
    job_id = jobs.create(len(files))
    for item in files:
        app.send_task("evident.ingest_file", kwargs={"job_id": job_id, "path": str(item.path), "name": item.name,
                                                    "force": force})
    return job_id


def prune(jobs: JobStore, client: OpenSearch, settings: Settings, paths: list[str],
          found: list[CorpusFile]) -> dict[str, int]:
    """Remove from the index the files once ingested from these folders that are gone from them.

    Returns each removed file name with the number of evidence removed.
    """
    ingested = jobs.ingested_files()
    removed = {}
    for name in vanished(list(ingested), paths, found):
        removed[name] = delete_documents(client, settings, ingested[name])
        jobs.forget_file(name)
    return removed


def wait_for_job(jobs: JobStore, job_id: str, timeout: float,
                 on_progress: Callable[[JobStatus], None] | None = None) -> JobStatus:
    deadline = time.monotonic() + timeout
    while True:
        status = jobs.status(job_id)
        if status is None:
            raise KeyError(f"no ingest job {job_id!r}")
        if on_progress:
            on_progress(status)
        if status.finished or time.monotonic() > deadline:
            return status
        time.sleep(POLL_SECONDS)
