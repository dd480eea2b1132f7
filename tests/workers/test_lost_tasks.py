"""Jobs always finish: a real ``evident worker`` process killed with SIGKILL in the middle of a job (its task
comes back to the next worker after a short visibility timeout), and a file stopped at the soft time limit.
Each worker runs as its own process with its limits from the environment, on an index alias and Redis database
of this module's, so killing it touches no other test's worker."""
from __future__ import annotations

import os
import shutil
import signal
import time

import pymupdf
import pytest
import redis

from tests.conftest import HARBORLANE, SAMPLES, TEST_ALIAS, TEST_REDIS_DB
from tests.ingest.sources.pdf_helpers import SAMPLE_PDF, builders
from tests.workers.worker_process import WorkerProcess, isolated_settings
from workers.folder import discover
from workers.submit import queue_files, wait_for_job

LOST_ALIAS = f"lost-{TEST_ALIAS}"  # not under TEST_ALIAS-*: index templates may not overlap
LOST_REDIS_DB = int(os.environ.get("EVIDENT_TEST_LOST_REDIS_DB", (TEST_REDIS_DB + 11) % 16))
# Pages of the harborlane wiki in the killed worker's job: the kill comes after three, with one in the worker's
# hands and the rest still queued; more pages would only make the job longer.
WIKI_PAGE_COUNT = 10
# The slow file is an image-only copy of the sample manual four times over: twelve pages through OCR, several
# times the soft time limit below (three pages take about as long as the limit on a fast machine).
SCANNED_COPIES = 4
# A killed worker's task comes back 22 s after it was taken (the new worker's start takes most of that); a wiki page
# still has 15 s, many times the second it takes. One pool process: the kill then always finds the one task it
# holds. The pool-process test runs on the same worker, started once for both.
KILLED_ENV = {"EVIDENT_WORKER_SOFT_TIME_LIMIT": "15", "EVIDENT_WORKER_TIME_LIMIT": "18",
              "EVIDENT_WORKER_VISIBILITY_TIMEOUT": "22", "EVIDENT_SERVICES_WORKER_CONCURRENCY": "1"}
# 4 s: the slow file's OCR takes four times longer, a one-page HTML file a fraction of a second. No sentence view:
# this test is about the soft limit, not what the page's sentences cost on busy cores.
SOFT_LIMIT_ENV = {"EVIDENT_WORKER_SOFT_TIME_LIMIT": "4", "EVIDENT_WORKER_TIME_LIMIT": "60",
                  "EVIDENT_WORKER_VISIBILITY_TIMEOUT": "90", "EVIDENT_SERVICES_WORKER_CONCURRENCY": "1",
                  "EVIDENT_SEARCH_SENTENCE_WEIGHT": "0"}
KILL_AFTER = 3  # files counted before the worker is killed: the job is under way, most of it still queued
JOB_WAIT = 900  # seconds a job of the wiki's pages may take here, a worker restart and redelivery included
POLL_SECONDS = 0.2
# The job's last task finishes the job, then returns and is acknowledged: seconds at most on a loaded machine.
ACK_WAIT = 10
PING_SECONDS = 5  # a worker busy loading a process's models still answers its control messages in this
# Seconds for a killed pool process's replacement to start and ingest one small page: its models load in about
# 10 s here; Celery's own start timeout killed each replacement after 4 s, so the page was never ingested.
REPLACEMENT_WAIT = 120


@pytest.fixture(scope="module")
def lost(settings, stores):
    """This module's settings and their job store."""
    from core.jobs import JobStore

    isolated = isolated_settings(settings, stores, LOST_ALIAS, LOST_REDIS_DB)
    return isolated, JobStore.from_settings(isolated)


def searchable_documents(client, settings) -> set[str]:
    """The doc ids a search finds now (no refresh here: a finished job must be searchable as it is)."""
    answer = client.search(index=settings.opensearch.index_alias, body={
        "size": 0, "aggs": {"docs": {"terms": {"field": "doc_id", "size": 1000}}}})
    return {bucket["key"] for bucket in answer["aggregations"]["docs"]["buckets"]}


def wiki_pages(folder):
    """The harborlane wiki's first ``WIKI_PAGE_COUNT`` pages and its users, copied into ``folder/pages``."""
    pages = folder / "pages"
    pages.mkdir()
    shutil.copy(HARBORLANE / "users.json", folder / "users.json")
    for page in sorted((HARBORLANE / "pages").glob("*.json"))[:WIKI_PAGE_COUNT]:
        shutil.copy(page, pages / page.name)
    return pages


def test_a_job_whose_worker_was_killed_finishes_once_a_new_worker_runs(lost, stores, worker_processes, tmp_path):
    lost_settings, lost_jobs = lost
    broker = redis.Redis.from_url(lost_settings.redis.url)
    files, missing, _skipped = discover([str(wiki_pages(tmp_path))])
    assert not missing and len(files) == WIKI_PAGE_COUNT
    worker = worker_processes.get(lost_settings, KILLED_ENV)
    job_id = queue_files(worker.app, lost_jobs, files)
    deadline = time.monotonic() + JOB_WAIT
    while True:  # under way, with a task in the worker's hands (taken, not acknowledged)
        status = lost_jobs.status(job_id)
        if status.done >= KILL_AFTER and broker.hlen("unacked"):
            break
        assert time.monotonic() < deadline and not status.finished, status
        time.sleep(POLL_SECONDS)
    worker.kill()
    killed = lost_jobs.status(job_id)
    assert not killed.finished and broker.hlen("unacked") == 1  # the task it held, not acknowledged
    worker.start()  # left running for the next test: a start loads the models
    status = wait_for_job(lost_jobs, job_id, JOB_WAIT)
    assert status.finished and status.state == "finished", status
    assert (status.done, status.failed, status.cancelled) == (WIKI_PAGE_COUNT, 0, 0), status.errors  # none lost, none twice
    assert broker.hlen(f"evident:job:{job_id}:outcomes") == WIKI_PAGE_COUNT
    acked_by = time.monotonic() + ACK_WAIT
    while broker.hlen("unacked") and time.monotonic() < acked_by:  # the task that finished the job, still returning
        time.sleep(POLL_SECONDS)
    assert broker.hlen("unacked") == 0 and lost_jobs.queue_length() == 0
    assert len(searchable_documents(stores, lost_settings)) == WIKI_PAGE_COUNT


def pool_processes(worker: WorkerProcess) -> list[int]:
    """The pids of the worker's pool processes, as the worker reports them (its answer ends the wait: without
    ``limit`` every look waits the whole ``PING_SECONDS`` for other workers)."""
    stats = worker.app.control.inspect(timeout=PING_SECONDS, limit=1).stats() or {}
    return [pid for answer in stats.values() for pid in answer["pool"]["processes"]]


def test_a_pool_process_killed_by_the_system_is_replaced_and_the_replacement_works(lost, stores, worker_processes,
                                                                                   tmp_path):
    """The kernel's OOM killer or a hard time limit ends a pool process; the worker starts another, which loads
    its models for longer than Celery's default start timeout (4 s) and must not be killed for it."""
    lost_settings, lost_jobs = lost
    worker = worker_processes.get(lost_settings, KILLED_ENV)  # the killed-job test's, when it ran before
    try:
        [first] = pool_processes(worker)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + REPLACEMENT_WAIT
        while (replaced := pool_processes(worker)) in ([], [first]):
            assert time.monotonic() < deadline, "no process replaced the killed one"
            time.sleep(POLL_SECONDS)
        folder = tmp_path / "after"
        folder.mkdir()
        (folder / "manifest.json").write_text('{"base": "https://files.example.org/after/"}', encoding="utf-8")
        shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", folder / "page.html")
        files, _missing, _skipped = discover([str(folder)])
        status = wait_for_job(lost_jobs, queue_files(worker.app, lost_jobs, files), REPLACEMENT_WAIT)
        assert status.finished and status.done == 1, status.errors
        assert pool_processes(worker) == replaced  # the process that did the work is the one that replaced it
    finally:
        worker.stop()


def test_a_file_past_the_soft_time_limit_is_recorded_and_the_job_goes_on(lost, stores, worker_processes, tmp_path):
    lost_settings, lost_jobs = lost
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"base": "https://files.example.org/slow/"}', encoding="utf-8")
    scanned_bytes = builders.scanned_copy(SAMPLE_PDF.read_bytes())
    with pymupdf.open() as slow, pymupdf.open(stream=scanned_bytes, filetype="pdf") as scanned:
        for _ in range(SCANNED_COPIES):
            slow.insert_pdf(scanned)
        slow.save(folder / "scanned.pdf")
    shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", folder / "page.html")
    files, missing, _skipped = discover([str(folder)])
    assert not missing and len(files) == 2
    worker = worker_processes.get(lost_settings, SOFT_LIMIT_ENV)
    status = wait_for_job(lost_jobs, queue_files(worker.app, lost_jobs, files), JOB_WAIT)
    assert status.finished and (status.done, status.failed) == (1, 1), status.errors
    assert [e["reason"] for e in status.errors] == [
        "slow/scanned.pdf: stopped after 4 s ([worker] soft_time_limit, EVIDENT_WORKER_SOFT_TIME_LIMIT); skipped"]
    assert any(doc_id.endswith("page.html") for doc_id in searchable_documents(stores, lost_settings))
