"""A web site kept in sync through the real worker, Redis and OpenSearch, against the stand-in intranet."""
from __future__ import annotations

import dataclasses
import json

import pytest

from api.app import create_app
from tests.api.test_search import PASSWORD, closed_port
from tests.evident.test_cli import evident_here  # noqa: F401 - the in-process command fixture
from tests.standins.site import SiteStandIn, write_intranet
from tests.workers.sync.conftest import SYNC_ALIAS, indexed, run_sync
from workers.sync import registry
from workers.sync.site import SiteSync
from workers.tasks import PipelineContext


@pytest.fixture
def intranet(tmp_path, sources, stores, sync_settings):
    with SiteStandIn(tmp_path) as site:
        write_intranet(tmp_path, site.url, other_host=f"http://localhost:{site.port}")
        registry.register(sources, "intranet", "site", {"start": site.url + "/"})
        yield site, tmp_path
        registry.remove(sources, stores, sync_settings, "intranet")


def urls(stores, sync_settings) -> set[str]:
    return {s["url"].split("#")[0] for s in indexed(stores, sync_settings).values()}


def test_a_site_is_crawled_recrawled_with_304s_and_follows_removals(intranet, sync_worker, sources, stores,
                                                                   sync_settings):
    site, root = intranet
    last = run_sync(sync_worker, sources, "intranet")
    found = urls(stores, sync_settings)
    assert {site.url + "/hr/leave.html", site.url + "/files/employee-handbook.pdf", site.url + "/"} <= found
    assert site.url + "/private/salaries.html" not in found  # robots.txt
    assert last["counts"]["added"] == len(found)

    site.served.clear()
    last = run_sync(sync_worker, sources, "intranet")
    indexed_pages = [s for s in site.served if site.url + s.path in found]  # not robots, sitemaps, noindex pages
    assert len(indexed_pages) == len(found) and [s for s in indexed_pages if s.status != 304] == []
    assert last["counts"].get("unchanged") == len(found) and not last["counts"].get("updated")

    (root / "hr" / "leave.html").unlink()
    run_sync(sync_worker, sources, "intranet")
    assert site.url + "/hr/leave.html" not in urls(stores, sync_settings)
    assert sources.item("intranet", site.url + "/hr/leave.html") is None


def test_a_credentialed_start_url_llm_endpoint_and_token_link_never_show_their_secret(
        tmp_path, sources, stores, sync_settings, sync_jobs, searcher, evident_here):
    """The sync runs in this process, as the worker runs it, so that it can be given an LLM endpoint of its own;
    what it records is then read the three ways an admin reads it: the store, ``evident sources list``, the API."""
    (tmp_path / "index.html").write_text(
        "<html><head><title>Duty rota</title></head><body><h1>Duty rota</h1><p>The duty engineer answers the "
        "pager from eight in the morning to eight in the evening, every day of the week. A call that is not "
        "answered within ten minutes goes to the deputy, and after twenty minutes to the head of operations. "
        "Hand over the pager at the Monday stand-up with the open incidents written down, so the next engineer "
        f'knows what is still burning. <a href="report.html?token={PASSWORD}">Signed report</a></p></body></html>')
    (tmp_path / "report.html").write_text("<html><head><title>Report</title></head><body><h1>Report</h1>"
                                          "<p>Incidents of the week: none.</p></body></html>")
    endpoint = f"http://evident:{PASSWORD}@127.0.0.1:{closed_port()}/v1"
    configured = dataclasses.replace(sync_settings, llm=dataclasses.replace(sync_settings.llm, base_url=endpoint,
                                                                             model="tiny"))
    with SiteStandIn(tmp_path) as site:
        start = site.url.replace("http://", f"http://ops:{PASSWORD}@") + "/"
        registry.register(sources, "guarded", "site", {"start": start})
        try:
            ctx = PipelineContext(configured)
            ctx.embedder = searcher.embedder  # the model the session has loaded already
            SiteSync(ctx, sources, sources.get("guarded")).step()
            shown = {"recorded": [e for e in sync_jobs.recent_errors() if e["job"] == "source:guarded"],
                     "described": registry.describe(sources, sync_jobs, sources.get("guarded")),
                     "indexed": urls(stores, sync_settings)}
            env = {"EVIDENT_REDIS_URL": sync_settings.redis.url, "EVIDENT_OPENSEARCH_INDEX_ALIAS": SYNC_ALIAS}
            listed = evident_here("sources", "list", env=env).stdout
            auth = dataclasses.replace(sync_settings.auth, mode="signed-header", proxy_secret="p", admin_token="t")
            admin = create_app(dataclasses.replace(sync_settings, auth=auth), searcher=searcher).test_client()
            answered = admin.get("/api/admin/sources", headers={"Authorization": "Bearer t"}).get_data(as_text=True)
        finally:
            registry.remove(sources, stores, sync_settings, "guarded")
    assert site.url + "/" in shown["indexed"]  # crawled without the credentials, which no link carries
    reasons = [e["reason"] for e in shown["recorded"]]
    assert any("http://evident:***@127.0.0.1" in r and "LLM summary failed" in r for r in reasons), reasons
    refused = next(e for e in shown["recorded"] if "report.html" in e["file"])  # its link carries the token
    assert refused["file"] == f"{site.url}/report.html?token=***"
    assert "carries a secret in its query (token=)" in refused["reason"] and "not indexed" in refused["reason"]
    assert not any("report.html" in url for url in shown["indexed"])
    assert shown["described"]["options"]["start"] == site.url.replace("http://", "http://ops:***@") + "/"
    assert "http://ops:***@127.0.0.1" in listed and "http://ops:***@127.0.0.1" in answered
    for text in (json.dumps(shown, default=sorted), listed, answered):
        assert PASSWORD not in text
