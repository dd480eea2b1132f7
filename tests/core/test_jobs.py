"""The Redis edge against the real Redis: job records and the corpus keyword statistics."""
from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis

from core.jobs import ACTIVITY_BUCKET_SECONDS, ACTIVITY_KEEP_SECONDS, JobStore, Settled

UPDATES = 150  # per updater: many read-count-write cycles, so two updaters overlap again and again


@pytest.fixture
def scratch(settings, stores) -> JobStore:
    """A store with keys of its own in the test database, apart from the session's jobs and statistics."""
    return JobStore.from_url(settings.redis.url, prefix=f"evident-test-{uuid.uuid4().hex[:8]}")


def keyword_counts(settings, store: JobStore) -> tuple[dict[str, int], int]:
    """The keyword statistics as Redis holds them: lemma -> evidence counted with it, and the evidence counted."""
    client = redis.Redis.from_url(settings.redis.url, decode_responses=True)
    return ({lemma: int(n) for lemma, n in client.hgetall(f"{store.prefix}:keyword-df").items()},
            int(client.get(f"{store.prefix}:keyword-docs") or 0))


def test_a_document_counts_once_however_often_it_is_written_and_not_once_it_is_gone(settings, scratch):
    scratch.count_keywords("page-1", [["buoy", "sensor", "buoy"], ["sensor", "battery"]])
    scratch.count_keywords("page-2", [["buoy"]])
    counted = ({"buoy": 2, "sensor": 2, "battery": 1}, 3)
    assert keyword_counts(settings, scratch) == counted
    scratch.count_keywords("page-1", [["buoy", "sensor", "buoy"], ["sensor", "battery"]])  # a redelivered task
    assert keyword_counts(settings, scratch) == counted
    scratch.count_keywords("page-1", [["anchor"]])  # ingested again after an edit: its old counts go
    assert keyword_counts(settings, scratch) == ({"buoy": 1, "anchor": 1}, 2)
    stats = scratch.keyword_stats()
    assert (stats.n_docs, stats.frequency("anchor"), stats.frequency("sensor")) == (2, 1, 0)
    scratch.documents_deleted(["page-1", "page-2", "never-written"])
    assert keyword_counts(settings, scratch) == ({}, 0)


def test_a_documents_evidence_ids_are_kept_until_the_document_is_deleted(scratch):
    assert scratch.evidence_of("page-1") is None  # never written: its stale evidence is found by a query
    scratch.remember_evidence("page-1", ["e2", "e1", "e1"])
    assert scratch.evidence_of("page-1") == ["e1", "e2"]
    scratch.documents_deleted(["page-1"])
    assert scratch.evidence_of("page-1") is None


def test_what_a_document_adds_while_it_is_ingested_stays_out_of_redis(settings, scratch):
    scratch.count_keywords("page-1", [["buoy"]])
    stats = scratch.keyword_stats()
    stats.add(["buoy", "lost"])
    assert (stats.n_docs, stats.frequency("buoy"), stats.frequency("lost")) == (2, 2, 1)
    assert keyword_counts(settings, scratch) == ({"buoy": 1}, 1)  # counted once its evidence is written


def test_two_workers_counting_at_once_lose_no_counts(settings, scratch):
    """Each worker counts documents of its own and rewrites one document both write, with its own lemma: the
    statistics end with every document of each, and the shared one once, as the last write left it."""
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def count(worker: str) -> None:
        store = JobStore.from_url(settings.redis.url, prefix=scratch.prefix)  # its own connection, as a worker
        start.wait()
        try:
            for n in range(UPDATES):
                store.count_keywords(f"{worker}-{n}", [["shared", f"{worker}-{n}"]])
                store.count_keywords("both", [["shared", worker]])
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)

    threads = [threading.Thread(target=count, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    df, evidence = keyword_counts(settings, scratch)
    assert evidence == 2 * UPDATES + 1 and df["shared"] == 2 * UPDATES + 1
    assert df.get("a", 0) + df.get("b", 0) == 1  # the shared document counts once, as one of them wrote it
    assert len(df) == 1 + 2 * UPDATES + 1


def test_a_job_whose_files_wrote_documents_finishes_once_their_key_phrases_are_refreshed(scratch):
    job_id = scratch.create(3)
    assert scratch.count(job_id, "done", "a.html", "doc-a") == Settled.COUNTED
    assert scratch.count(job_id, "skipped", "b.html") == Settled.COUNTED
    assert scratch.count(job_id, "done", "a.html", "doc-a") == Settled.NOTHING  # delivered again: nothing changes
    assert scratch.count(job_id, "failed") == Settled.KEYWORDS_DUE  # a file never sent, the last one
    status = scratch.status(job_id)
    assert (status.done, status.skipped, status.failed, status.keywords_pending) == (1, 1, 1, True)
    assert (status.finished, status.state) == (False, "running") and scratch.document_ids(job_id) == ["doc-a"]
    scratch.keywords_refreshed(job_id)
    assert scratch.status(job_id).state == "finished"
    nothing_written = scratch.create(1)
    assert scratch.count(nothing_written, "skipped", "b.html") == Settled.COUNTED
    assert scratch.status(nothing_written).finished and scratch.document_ids(nothing_written) == []


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


def test_each_index_alias_has_its_own_file_registry(settings, scratch):
    client = redis.Redis.from_url(settings.redis.url, decode_responses=True)
    second = JobStore(client, scratch.prefix, alias="second-alias")
    scratch.set_fingerprint("src:a.html", "print")
    scratch.remember_documents("src:a.html", ["html:src:a.html"])
    assert scratch.claim_document("html:src:a.html", "src:a.html") == "src:a.html"
    assert second.fingerprint("src:a.html") is None and second.documents("src:a.html") is None
    assert second.ingested_files() == {}
    assert second.claim_document("html:src:a.html", "src:other.html") == "src:other.html"  # no claim of the first
    second.set_fingerprint("src:a.html", "second print")
    second.forget_file("src:a.html")  # forgotten in the second alias, still ingested in the first
    assert scratch.fingerprint("src:a.html") == "print"
    assert scratch.ingested_files() == {"src:a.html": ["html:src:a.html"]}
    # The default alias keeps the keys the registry had before each alias had its own: nothing to migrate.
    assert client.hget(f"{scratch.prefix}:fingerprint", "src:a.html") == "print"
