"""The admin blueprint on the real services: ingest jobs, recorded errors, the queue and task metrics, for
admins only."""
from __future__ import annotations

import pytest

from core.jobs import INGEST_QUEUE
from tests.api.conftest import ADMIN, ADMIN_TOKEN, PROXY_SECRET, signed

ENDPOINTS = ("/api/ingest/jobs", "/api/ingest/jobs/nope", "/api/ingest/errors", "/api/ingest/queue")


def test_admin_sees_jobs_and_errors(client, sample_corpus):
    jobs = client.get("/api/ingest/jobs", headers=ADMIN).get_json()
    assert jobs and all(j["finished"] for j in jobs)
    job = client.get(f"/api/ingest/jobs/{jobs[-1]['job_id']}", headers=ADMIN).get_json()
    assert job["total"] >= 1
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
