"""The live-source admin endpoints on the real services: register, sync through the worker, describe, remove."""
from __future__ import annotations

import dataclasses
import time

import pytest

from api.app import create_app
from tests.api.conftest import ADMIN, signed
from tests.standins.site import SiteStandIn

SYNC_WAIT = 300  # seconds for two small pages through the session's worker


@pytest.fixture
def site(tmp_path):
    (tmp_path / "index.html").write_text('<html><head><title>Canteen</title></head><body><h1>Canteen</h1>'
                                         '<p>Lunch is served from noon. <a href="menu.html">Menu</a></p></body></html>')
    (tmp_path / "menu.html").write_text("<html><head><title>Menu</title></head><body><h1>Menu</h1>"
                                        "<p>Thursday: spinach dumplings with brown butter.</p></body></html>")
    with SiteStandIn(tmp_path) as stand_in:
        yield stand_in


@pytest.mark.parametrize("headers, status", [(dict, 401), (lambda: signed("ben", "staff"), 403)])  # signed when run
def test_sources_are_for_admins_only(client, headers, status):
    assert client.get("/api/admin/sources", headers=headers()).status_code == status
    assert client.post("/api/admin/sources", json={"name": "x", "kind": "site"},
                       headers=headers()).status_code == status


@pytest.mark.parametrize("body, named, field", [
    ({"name": "wiki", "kind": "confluence", "options": {"url": "https://wiki.example.com", "token": "s3cret",
                                                        "spaces": ["ENG"]}}, "token", "options.token"),
    ({"name": "wiki", "kind": "confluence", "options": {"url": "https://wiki.example.com", "token_env": "T",
                                                        "user_env": "U"}}, "scope", "options.spaces"),
    ({"name": "site", "kind": "site", "every": "1 fortnight", "options": {"start": "https://intranet.example.org/"}},
     "interval", "every"),
    ({"name": "site", "kind": "site", "options": {"start": "ftp://intranet.example.org/"}}, "start", "options.start"),
    ({"name": "site", "kind": "site", "options": {"start": "https://intranet.example.org/",
                                                  "sitemap": "https://elsewhere.example.org/sitemap.xml"}},
     "sitemap", "options.sitemap"),
    ({"name": "site", "kind": "site", "options": {"start": "https://intranet.example.org:99999/"}}, "not a URL",
     "options.start"),
    ({"name": "wiki", "kind": "confluence", "options": {"url": "http://[::1/", "token_env": "T", "user_env": "U",
                                                        "spaces": ["ENG"]}}, "url", "options.url"),
    ({"name": "bad name!", "kind": "site", "options": {"start": "https://intranet.example.org/"}}, "name", "name"),
    ({"name": "wiki", "kind": "confluence", "options": {"url": 5, "spaces": "ENG"}}, "option url", "options.url"),
    ({"name": "site", "kind": "site", "options": {"start": "https://intranet.example.org/", "depth": 3}},
     "option depth", "options.depth"),
])
def test_a_registration_that_cannot_work_is_refused_with_the_reason(client, body, named, field):
    response = client.post("/api/admin/sources", json=body, headers=ADMIN)
    answer = response.get_json()
    assert response.status_code == 400 and named in answer["error"]
    assert [error["parameter"] for error in answer["errors"]] == [field]  # a client can mark the field
    assert answer["errors"][0]["reason"] in answer["error"]
    assert "s3cret" not in response.get_data(as_text=True)


def test_the_schema_shows_what_a_registration_may_hold(client):
    new_source = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    schema = next(schema for name, schema in new_source.items() if name.startswith("NewSource"))
    assert schema["properties"]["name"]["pattern"].startswith("^")
    kinds = schema["properties"]["options"]["anyOf"]
    assert [sorted(kind["required"]) for kind in kinds] == [["url"], ["start"]]
    assert not any("token" in kind["properties"] for kind in kinds)  # a secret is never an option


def test_a_site_is_registered_synced_described_and_removed(client, site, stores, settings):
    created = client.post("/api/admin/sources", json={"name": "canteen", "kind": "site", "every": "1h",
                                                       "options": {"start": site.url + "/"}}, headers=ADMIN)
    assert created.status_code == 201 and created.get_json()["next_sync"] == "now"
    assert client.post("/api/admin/sources/canteen/sync", headers=ADMIN).status_code == 202
    deadline = time.monotonic() + SYNC_WAIT
    while not (described := client.get("/api/admin/sources/canteen", headers=ADMIN).get_json())["last_sync"]:
        assert time.monotonic() < deadline, described
        time.sleep(0.5)
    assert described["last_sync"]["counts"]["added"] == 2 and described["items"] == 2
    stores.indices.refresh(index=settings.opensearch.index_alias)
    hits = client.get("/api/search", query_string={"q": "spinach dumplings"}).get_json()["hits"]
    assert hits and hits[0]["url"] == site.url + "/menu.html"
    removed = client.delete("/api/admin/sources/canteen", headers=ADMIN)
    assert removed.status_code == 200 and removed.get_json()["removed_evidence"] >= 2
    assert client.get("/api/admin/sources/canteen", headers=ADMIN).status_code == 404
    assert client.post("/api/admin/sources/canteen/sync", headers=ADMIN).status_code == 404


@pytest.mark.parametrize("kind, options", [("site", {"start": "{url}/"}),
                                           ("confluence", {"url": "{url}", "token_env": "T", "user_env": "U",
                                                           "spaces": ["ENG"]})])
def test_a_source_on_loopback_is_refused_with_default_settings(app, site, kind, options):
    settings = app.extensions["evident"]["settings"]
    strict = create_app(dataclasses.replace(settings, sources=dataclasses.replace(
        settings.sources, allowed_private_hosts=())), searcher=app.extensions["evident"]["searcher"]).test_client()
    options = {k: v.format(url=site.url) if isinstance(v, str) else v for k, v in options.items()}
    response = strict.post("/api/admin/sources", json={"name": "loopback", "kind": kind, "options": options},
                           headers=ADMIN)
    url = options.get("start") or options["url"]
    assert response.status_code == 400 and response.get_json()["error"] == (
        f"source 'loopback': {url} resolves to 127.0.0.1, a loopback address: not fetched "
        f"(allow it with EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS)")
    assert response.get_json()["errors"][0]["parameter"] == f"options.{'start' if kind == 'site' else 'url'}"
    assert strict.get("/api/admin/sources/loopback", headers=ADMIN).status_code == 404
