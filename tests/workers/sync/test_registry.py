"""What the admin is shown of a source's sync: under way only while its lock is held."""
from __future__ import annotations

import time

from workers.sync import registry

LOCK_SECONDS = 1  # the lock a worker killed mid-sync leaves behind lapses after this


def test_a_sync_whose_worker_died_shows_cut_short_once_its_lock_lapses(sources, sync_jobs, stores, sync_settings):
    registry.register(sources, "orphaned", "site", {"start": "https://intranet.example.org/"})
    try:
        sources.save_checkpoint("orphaned", phase="crawl", started="2026-01-05T10:00:00+00:00", counts={"added": 3})
        assert sources.lock("orphaned", LOCK_SECONDS).acquire()  # a worker's, never released: SIGKILL
        described = registry.describe(sources, sync_jobs, sources.get("orphaned"))
        assert described["running"] and described["under_way"]["phase"] == "crawl"
        assert described["cut_short"] is None
        time.sleep(LOCK_SECONDS + 0.5)
        described = registry.describe(sources, sync_jobs, sources.get("orphaned"))
        assert not described["running"] and described["under_way"] is None
        assert described["cut_short"] == {"phase": "crawl", "started": "2026-01-05T10:00:00+00:00",
                                          "counts": {"added": 3}}
    finally:
        registry.remove(sources, stores, sync_settings, "orphaned")
