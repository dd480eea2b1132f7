"""The Flask API on the real services: search JSON, conversation POST, errors, health, admin views."""
from __future__ import annotations

import pytest

from tests.evident.test_retrieval import FACTS


@pytest.fixture(scope="module")
def client(settings, searcher, worker):
    from api.app import create_app

    return create_app(settings, searcher=searcher).test_client()


def test_search_returns_hits_with_what_the_search_box_shows(client, sample_corpus):
    fact = next(f for f in FACTS if f["Kind"] == "rare error code")
    response = client.get("/api/search", query_string={"q": fact["Query"], "k": 5})
    assert response.status_code == 200
    data = response.get_json()
    assert isinstance(data["took_ms"], int)
    hit = data["hits"][0]
    assert hit["url"] == fact["Expected URL"]
    assert {"url", "title", "heading_path", "kind", "snippet", "score"} <= set(hit)
    assert "<mark>" in hit["snippet"]
    assert len(data["hits"]) <= 5


def test_groups_header_opens_restricted_pages(client, sample_corpus):
    fact = next(f for f in FACTS if f["Visible to"] != "everyone")
    outside = client.get("/api/search", query_string={"q": fact["Query"], "k": 50}).get_json()
    assert fact["Expected URL"] not in [h["url"] for h in outside["hits"]]
    inside = client.get("/api/search", query_string={"q": fact["Query"]},
                        headers={"X-Evident-Groups": fact["Visible to"]}).get_json()
    assert inside["hits"][0]["url"] == fact["Expected URL"]


def test_post_with_conversation_resolves_a_follow_up(client, sample_corpus):
    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    body = {"q": "and how do I fix it?",
            "history": [{"q": "What does the error TS-E4471 mean?", "results": [{"url": runbook}]}]}
    data = client.post("/api/search", json=body).get_json()
    assert data["hits"][0]["url"] == runbook


@pytest.mark.parametrize("query, needle", [
    ({}, "q"), ({"q": "x", "k": "ten"}, "k"), ({"q": "x", "k": "0"}, "k"), ({"q": "x", "mode": "magic"}, "mode")])
def test_bad_requests_name_the_parameter(client, query, needle):
    response = client.get("/api/search", query_string=query)
    assert response.status_code == 400
    assert needle in response.get_json()["error"]


def test_health_reports_every_service(client):
    response = client.get("/api/health")
    data = response.get_json()
    assert response.status_code == 200, data
    assert data["opensearch"] in ("green", "yellow") and data["redis"] == "ok" and data["workers"] >= 1


def test_search_page_is_served(client):
    response = client.get("/")
    assert response.status_code == 200 and b"/api/search" in response.data


def test_admin_sees_jobs_and_errors(client, sample_corpus):
    jobs = client.get("/api/ingest/jobs").get_json()
    assert jobs and all(j["finished"] for j in jobs)
    job = client.get(f"/api/ingest/jobs/{jobs[-1]['job_id']}").get_json()
    assert job["total"] >= 1
    assert client.get("/api/ingest/jobs/nope").status_code == 404
    queue = client.get("/api/ingest/queue").get_json()
    assert queue["metrics"]["evident.ingest_file"]["succeeded"] >= 1


def test_each_search_is_logged_for_the_search_dashboard(client, stores, sample_corpus):
    from core.index import SEARCHLOG_INDEX

    client.get("/api/search", query_string={"q": "searchlog probe query"})
    stores.indices.refresh(index=SEARCHLOG_INDEX)
    logged = stores.search(index=SEARCHLOG_INDEX, body={"query": {"match_phrase": {"q": "searchlog probe query"}}})
    entry = logged["hits"]["hits"][0]["_source"]
    assert entry["took_ms"] >= 0 and entry["mode"] == "hybrid" and "at" in entry
