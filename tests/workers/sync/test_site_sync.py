"""A web site kept in sync through the real worker, Redis and OpenSearch, against the stand-in intranet."""
from __future__ import annotations

import pytest

from tests.standins.site import SiteStandIn, write_intranet
from tests.workers.sync.conftest import indexed, run_sync
from workers.sync import registry


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
