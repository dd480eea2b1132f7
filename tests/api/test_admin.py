"""The admin blueprint on the real services: ingest jobs, recorded errors, the queue and task metrics, for
admins only."""
from __future__ import annotations

import json

import pytest

from core.jobs import ACTIVITY_BUCKET_SECONDS, ACTIVITY_KEEP_SECONDS, INGEST_QUEUE
from tests.api.conftest import ADMIN, ADMIN_TOKEN, PROXY_SECRET, signed

ENDPOINTS = ("/api/ingest/jobs", "/api/ingest/jobs/nope", "/api/ingest/errors", "/api/ingest/queue")
SECRET_WORDS = "zebrasecret quokkanomicon marmalade"  # words no other page of the tests' index holds
CORPUS_BASE = "https://files.example.org/corpus/"


def test_admin_sees_jobs_and_errors(client, sample_corpus):
    jobs = {job["job_id"]: job for job in client.get("/api/ingest/jobs", headers=ADMIN).get_json()}
    assert jobs[sample_corpus.job_id]["finished"]  # other modules' jobs may be under way in the same database
    job = client.get(f"/api/ingest/jobs/{sample_corpus.job_id}", headers=ADMIN).get_json()
    assert job["total"] == sample_corpus.total >= 1
    assert client.get("/api/ingest/jobs/nope", headers=ADMIN).status_code == 404
    assert isinstance(client.get("/api/ingest/errors", headers=ADMIN).get_json(), list)
    queue = client.get("/api/ingest/queue", headers=ADMIN).get_json()
    assert queue["metrics"]["evident.ingest_file"]["succeeded"] >= 1
    assert queue["queue"] == INGEST_QUEUE and queue["waiting"] == 0  # every job the tests queued has finished


def test_a_member_of_the_admin_group_is_an_admin(client, sample_corpus):
    assert client.get("/api/ingest/queue", headers=signed("ana", "staff,evident-admins")).status_code == 200


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("headers, status", [
    (dict, 401),                                                           # anonymous
    (lambda: {"X-Evident-Groups": "evident-admins"}, 401),                 # unsigned claim
    (lambda: signed("mallory", "evident-admins", secret="guessed"), 401),  # forged signature
    (lambda: {"Authorization": "Bearer not-the-token"}, 401),
    (lambda: signed("ben", "staff"), 403),                                 # signed in, not an admin
])
def test_admin_endpoints_refuse_everyone_else(client, path, headers, status):
    response = client.get(path, headers=headers())
    assert response.status_code == status
    body = response.get_data(as_text=True)
    assert response.get_json()["error"] and ADMIN_TOKEN not in body and PROXY_SECRET not in body


def test_the_console_summary_shows_index_queue_jobs_errors_and_searches(app, client, stores, sample_corpus):
    client.get("/api/search", query_string={"q": "zzzz-no-such-thing-anywhere"})
    app.extensions["evident"]["searchlog"].flush()
    stores.indices.refresh(index=app.extensions["evident"]["settings"].opensearch.searchlog_index)
    data = client.get("/api/admin/summary", headers=ADMIN).get_json()
    assert data["index"]["evidence"] > 0 and data["index"]["size_bytes"] > 0 and data["index"]["by_kind"]
    deleted = stores.indices.stats(index=app.extensions["evident"]["settings"].opensearch.index_alias,
                                   metric="docs")["_all"]["primaries"]["docs"]["deleted"]
    assert data["index"]["deleted"] == deleted
    assert data["queue"]["waiting"] == 0 and data["jobs"] and data["flower"].startswith("http://127.0.0.1:")
    assert data["searches"]["searches"] >= 1
    assert ["zzzz-no-such-thing-anywhere", 1] in data["searches"]["top"]
    assert client.get("/api/admin/summary", query_string={"days": "0"}, headers=ADMIN).status_code == 400


def test_the_summary_shows_files_finished_and_the_queue_per_minute_over_the_last_hours(client, sample_corpus):
    minutes = client.get("/api/admin/summary", headers=ADMIN).get_json()["queue"]["minutes"]
    assert len(minutes) == ACTIVITY_KEEP_SECONDS // ACTIVITY_BUCKET_SECONDS
    assert sum(m["finished"] for m in minutes) >= sample_corpus.total  # the session's ingest, file by file
    assert max(m["waiting"] or 0 for m in minutes) >= 1  # its files waited in the queue: the minute keeps the peak
    assert minutes[-1]["waiting"] is not None  # this minute was sampled as the summary was read


def test_a_failed_file_is_queued_again(client, ingest, jobs, tmp_path):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 this is not a PDF")
    status = ingest(tmp_path)
    assert status.failed == 1
    error = next(e for e in client.get("/api/ingest/errors", headers=ADMIN).get_json() if e["job"] == status.job_id)
    assert error["path"] == str(broken)
    again = client.post("/api/ingest/retry", json={"job": error["job"], "file": error["file"]}, headers=ADMIN)
    assert again.status_code == 200, again.get_json()
    from workers.submit import wait_for_job

    assert wait_for_job(jobs, again.get_json()["job_id"], timeout=120).failed == 1  # still broken, recorded again
    unknown = client.post("/api/ingest/retry", json={"job": "nope", "file": "broken.pdf"}, headers=ADMIN)
    assert unknown.status_code == 404
    broken.unlink()  # the retry reads the file on the API's side: a file gone is a clear refusal naming it
    gone = client.post("/api/ingest/retry", json={"job": error["job"], "file": error["file"]}, headers=ADMIN)
    assert gone.status_code == 410 and error["file"] in gone.get_json()["error"]
    assert str(broken) in gone.get_json()["error"]
    assert client.post("/api/ingest/retry", json={"job": error["job"], "file": error["file"]}).status_code == 401


def test_a_failed_file_swapped_for_a_symlink_out_is_refused_on_retry_and_nothing_leaks(client, ingest, jobs, stores,
                                                                                      settings, tmp_path):
    secret = tmp_path / "secret.html"  # outside the ingested folder
    secret.write_text(f"<html><body><p>{SECRET_WORDS}</p></body></html>", encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "manifest.json").write_text(json.dumps({"base": CORPUS_BASE}), encoding="utf-8")
    zero = corpus / "zero.html"
    zero.write_bytes(b"")  # an empty page fails
    status = ingest(corpus)
    assert status.failed == 1
    [error] = [e for e in status.errors if e["file"] == "corpus/zero.html"]
    zero.unlink()
    zero.symlink_to(secret)
    again = client.post("/api/ingest/retry", json={"job": status.job_id, "file": error["file"]}, headers=ADMIN)
    assert again.status_code == 422, again.get_json()
    reason = f"corpus/zero.html: a symlink to {secret.resolve()}, outside the folder {corpus.resolve()}; not read"
    assert again.get_json()["error"] == f"cannot retry 'corpus/zero.html': {reason}"
    assert jobs.status(status.job_id).errors[-1] | {"at": 0} == {"job": status.job_id, "file": "corpus/zero.html",
                                                                "reason": f"retry refused: {reason}", "at": 0,
                                                                "path": str(zero)}
    stores.indices.refresh(index=settings.opensearch.index_alias)
    found = client.get("/api/search", query_string={"q": SECRET_WORDS, "k": 50})  # anonymous, as in the issue
    assert found.status_code == 200 and [h for h in found.get_json()["hits"] if h["url"].startswith(CORPUS_BASE)] == []


def test_an_admin_cancels_a_job_and_an_unknown_one_is_a_404(client, jobs):
    job_id = jobs.create(2)  # two files no worker has taken yet
    cancelled = client.post(f"/api/admin/jobs/{job_id}/cancel", headers=ADMIN)
    assert cancelled.status_code == 200, cancelled.get_json()
    record = cancelled.get_json()
    assert record["job_id"] == job_id and record["state"] == "cancelling" and record["cancel_requested"] > 0
    shown = client.get(f"/api/ingest/jobs/{job_id}", headers=ADMIN).get_json()
    assert shown["state"] == "cancelling" and shown["cancel_requested"] == record["cancel_requested"]
    again = client.post(f"/api/admin/jobs/{job_id}/cancel", headers=ADMIN).get_json()
    assert again["cancel_requested"] == record["cancel_requested"]  # the first cancel stands
    unknown = client.post("/api/admin/jobs/nope/cancel", headers=ADMIN)
    assert unknown.status_code == 404 and unknown.get_json()["error"] == "no ingest job 'nope'"
    assert client.post(f"/api/admin/jobs/{job_id}/cancel").status_code == 401
    assert client.post(f"/api/admin/jobs/{job_id}/cancel", headers=signed("ben", "staff")).status_code == 403
    operation = client.get("/api/openapi.json").get_json()["paths"]["/api/admin/jobs/{job_id}/cancel"]["post"]
    assert {"200", "401", "403", "404"} <= set(operation["responses"])
