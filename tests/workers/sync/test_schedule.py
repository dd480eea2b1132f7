"""Beat's task queues the syncs that are due, and only those, through the real worker and Redis."""
from __future__ import annotations

from tests.standins.site import SiteStandIn
from tests.workers.sync.conftest import SYNC_WAIT, run_sync
from workers.sync import registry


def test_a_source_is_synced_when_its_interval_has_passed(tmp_path, sync_worker, sources, sync_jobs, stores,
                                                         sync_settings):
    (tmp_path / "index.html").write_text("<html><head><title>Bikes</title></head><body><h1>Bikes</h1>"
                                         "<p>The bike shed opens at seven.</p></body></html>")
    with SiteStandIn(tmp_path) as site:
        registry.register(sources, "bikes", "site", {"start": site.url + "/"}, every="1h")
        registry.register(sources, "on-demand", "site", {"start": site.url + "/"})
        try:
            schedule = sync_worker.app.send_task("evident.schedule_sources").get(timeout=SYNC_WAIT)
            assert schedule == ["bikes"]  # never synced: due; the other has no interval
            run_sync(sync_worker, sources, "bikes")  # waits for the queued sync (or runs it again)
            assert sync_worker.app.send_task("evident.schedule_sources").get(timeout=SYNC_WAIT) == []
            described = registry.describe(sources, sync_jobs, sources.get("bikes"))
            assert described["next_sync"] > described["last_sync"]["started"]
        finally:
            for name in ("bikes", "on-demand"):
                registry.remove(sources, stores, sync_settings, name)
