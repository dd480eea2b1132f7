"""The Redis edge against the real Redis: job records and the corpus keyword statistics."""
from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis

from core.jobs import ACTIVITY_BUCKET_SECONDS, ACTIVITY_KEEP_SECONDS, JobStore

UPDATES = 150  # per updater: many read-count-write cycles, so two updaters overlap again and again
OVERLAP = 0.001  # seconds each updater holds the statistics it read, so the other one writes meanwhile


@pytest.fixture
def scratch(settings, stores) -> JobStore:
    """A store with keys of its own in the test database, apart from the session's jobs and statistics."""
    return JobStore.from_url(settings.redis.url, prefix=f"evident-test-{uuid.uuid4().hex[:8]}")


def test_two_workers_counting_keywords_at_once_lose_no_counts(settings, scratch):
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def count(worker: str) -> None:
        store = JobStore.from_url(settings.redis.url, prefix=scratch.prefix)  # its own connection, as a worker
        start.wait()
        try:
            for n in range(UPDATES):
                with store.keyword_stats() as stats:
                    stats.add(["shared", f"{worker}-{n}"])
                    time.sleep(OVERLAP)
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    threads = [threading.Thread(target=count, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    with scratch.keyword_stats() as stats:
        assert stats.n_docs == 2 * UPDATES
        assert stats.frequency("shared") == 2 * UPDATES
        assert stats.frequency("a-0") == stats.frequency(f"b-{UPDATES - 1}") == 1 and stats.frequency("c-0") == 0
    counted = redis.Redis.from_url(settings.redis.url).hlen(f"{scratch.prefix}:keyword-df")
    assert counted == 1 + 2 * UPDATES  # the lemmas counted, and nothing a lookup read


def test_a_failed_count_adds_nothing(scratch):
    with pytest.raises(RuntimeError):
        with scratch.keyword_stats() as stats:
            stats.add(["lost"])
            raise RuntimeError("parse failed")
    with scratch.keyword_stats() as stats:
        assert stats.n_docs == 0 and stats.frequency("lost") == 0


def test_a_job_counts_its_outcomes_and_errors(scratch):
    job_id = scratch.create(3)
    scratch.count(job_id, "done")
    scratch.count(job_id, "skipped")
    scratch.record_error(job_id, "a.pdf", "truncated")
    scratch.count(job_id, "failed")
    status = scratch.status(job_id)
    assert (status.total, status.done, status.skipped, status.failed, status.finished) == (3, 1, 1, 1, True)
    assert [e["file"] for e in status.errors] == ["a.pdf"] and scratch.recent_errors()[0]["reason"] == "truncated"
    assert [j.job_id for j in scratch.recent_jobs()] == [job_id]
    assert scratch.status("nope") is None


def test_task_metrics_and_the_queue(scratch):
    scratch.metric("evident.ingest_file", "succeeded")
    scratch.metric("evident.ingest_file", "seconds", 0.5)
    assert scratch.metrics() == {"evident.ingest_file": {"succeeded": 1.0, "seconds": 0.5}}
    scratch.ping()
    assert isinstance(scratch.queue_length(), int)


def test_activity_counts_finished_tasks_and_samples_the_queue_per_minute(scratch):
    scratch.record_activity(finished=1)
    scratch.record_activity(finished=1)
    scratch.record_activity()  # an admin looking: the queue is sampled, nothing more finished
    minutes = scratch.activity()
    assert len(minutes) == ACTIVITY_KEEP_SECONDS // ACTIVITY_BUCKET_SECONDS  # the whole window, oldest first
    assert [m["at"] for m in minutes] == sorted(m["at"] for m in minutes)
    assert minutes[-1]["at"] <= time.time() < minutes[-1]["at"] + ACTIVITY_BUCKET_SECONDS
    recorded = [m for m in minutes if m["waiting"] is not None]  # this minute, or two when one just ended
    assert recorded and recorded[0]["at"] >= minutes[-2]["at"]
    assert sum(m["finished"] for m in recorded) == 2 and recorded[-1]["waiting"] == scratch.queue_length()
    assert sum(m["finished"] for m in minutes) == 2


def test_a_minute_of_activity_expires_by_itself(scratch, settings):
    scratch.record_activity(finished=1)
    client = redis.Redis.from_url(settings.redis.url)
    keys = list(client.scan_iter(f"{scratch.prefix}:activity:*"))
    assert len(keys) == 1 and 0 < client.ttl(keys[0]) <= ACTIVITY_KEEP_SECONDS


def test_a_file_counts_once_however_often_its_task_comes_back(scratch):
    job_id = scratch.create(2)
    assert scratch.outcome(job_id, "a.html") is None
    assert scratch.count(job_id, "done", "a.html")
    assert not scratch.count(job_id, "failed", "a.html")  # delivered again after it counted: nothing changes
    assert scratch.outcome(job_id, "a.html") == "done"
    status = scratch.status(job_id)
    assert (status.done, status.failed, status.finished, status.state) == (1, 0, False, "running")
    assert [scratch.delivered(job_id, "b.pdf") for _ in range(3)] == [1, 2, 3]
    assert scratch.count(job_id, "failed", "b.pdf")
    assert scratch.status(job_id).state == "finished"
    assert not scratch.count("nope", "done", "a.html")  # no such job: nothing is created
    assert scratch.status("nope") is None


def test_a_cancelled_job_finishes_as_cancelled_once_its_files_are_counted(scratch):
    job_id = scratch.create(3)
    scratch.count(job_id, "done", "a.html")
    first = scratch.cancel(job_id)
    assert first.cancel_requested and first.state == "cancelling" and scratch.cancel_requested(job_id)
    assert scratch.cancel(job_id).cancel_requested == first.cancel_requested  # cancelling again keeps the first time
    scratch.count(job_id, "cancelled", "b.html")
    scratch.count(job_id, "cancelled", "c.html")
    status = scratch.status(job_id)
    assert (status.done, status.cancelled, status.finished, status.state) == (1, 2, True, "cancelled")
    assert scratch.cancel("nope") is None and not scratch.cancel_requested(scratch.create(1))
