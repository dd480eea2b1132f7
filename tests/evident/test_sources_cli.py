"""``evident sources`` as an admin types it: add (checked), list, sync through the worker, remove."""
from __future__ import annotations

import json

import pytest

from tests.evident.test_cli import evident_here  # noqa: F401 - the in-process command fixture
from tests.standins.site import SiteStandIn


@pytest.fixture
def env(settings, worker):
    return {"EVIDENT_REDIS_URL": settings.redis.url, "EVIDENT_OPENSEARCH_INDEX_ALIAS": settings.opensearch.index_alias,
            "EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS": ",".join(settings.sources.allowed_private_hosts)}


def test_a_source_that_cannot_work_is_refused_with_the_reason(evident_here, env):
    result = evident_here("sources", "add", "confluence", "wiki", "--url", "wiki.example.com", "--spaces", "ENG",
                          "--token-env", "WIKI_TOKEN", "--user-env", "WIKI_USER", env=env)
    assert result.returncode == 1 and "url 'wiki.example.com'" in result.stderr
    result = evident_here("sources", "add", "site", "intranet", "--start", "https://intranet.example.org/",
                          "--every", "5s", env=env)
    assert result.returncode == 1 and "at least 60 s" in result.stderr
    assert evident_here("sources", "sync", "nothing-here", env=env).returncode == 1


def test_add_list_sync_and_remove_a_site(evident_here, env, tmp_path):
    (tmp_path / "index.html").write_text("<html><head><title>Parking</title></head><body><h1>Parking</h1>"
                                         "<p>Visitor permits are issued at the gatehouse.</p></body></html>")
    with SiteStandIn(tmp_path) as site:
        added = evident_here("sources", "add", "site", "parking", "--start", site.url + "/", "--every", "10m", env=env)
        assert added.returncode == 0 and json.loads(added.stdout)["every_seconds"] == 600
        listed = evident_here("sources", "list", env=env)
        assert "parking" in listed.stdout and site.url in listed.stdout and "last sync never" in listed.stdout
        synced = evident_here("sources", "sync", "parking", env=env)
        assert synced.returncode == 0, synced.stderr
        assert json.loads(synced.stdout[synced.stdout.index("\n{") + 1:])["counts"]["added"] == 1
        removed = evident_here("sources", "remove", "parking", env=env)
        assert removed.returncode == 0 and "parking" in removed.stdout
        assert "parking" not in evident_here("sources", "list", env=env).stdout


@pytest.mark.parametrize("start, address", [("http://127.0.0.1:9200/", "127.0.0.1"),
                                            ("http://0x7f000001:9200/", "127.0.0.1"), ("http://[::1]:9200/", "::1")])
def test_a_site_on_loopback_is_refused_with_default_settings(evident_here, settings, start, address):
    env = {"EVIDENT_REDIS_URL": settings.redis.url, "EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS": ""}
    result = evident_here("sources", "add", "site", "opensearch", "--start", start, env=env)
    assert result.returncode == 1 and result.stderr == (
        f"evident: source opensearch: {start} resolves to {address}, a loopback address: not fetched "
        f"(allow it with EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS)\n")
