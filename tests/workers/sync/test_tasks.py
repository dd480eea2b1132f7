"""Every sync task ends in a recorded state, through a real worker process and the stand-ins on loopback: one
stopped by its soft time limit, a site crawl handed from task to task, a listing that never ends, and a sync
whose source is removed while it runs."""
from __future__ import annotations

import time
from urllib.parse import urlencode

import flask
import pytest

from tests.conftest import SAMPLES
from tests.standins.confluence import ConfluenceStandIn
from tests.standins.site import SiteStandIn
from tests.workers.sync.conftest import SYNC_WAIT, WORKER_ENV, indexed, run_sync
from tests.workers.worker_process import WorkerProcess
from workers.sync import registry

WIKI = SAMPLES / "wiki"  # five pages: the smallest wiki that lists, indexes and continues
WIKI_PAGES = len(list((WIKI / "pages").glob("*.json")))
LISTED_CAP = 30  # ids a sync may list here: six answers of the five pages
# Two pages a task, so five pages take three tasks.
TASKS_ENV = {**WORKER_ENV, "EVIDENT_SOURCES_ITEMS_PER_TASK": "2",
             "EVIDENT_SOURCES_MAX_LISTED_PER_SYNC": str(LISTED_CAP)}
SOFT_LIMIT = 2  # seconds: the soft time limit a sync's first task is given; the stand-in's delays are set by it
HARD_LIMIT = 30  # seconds: far past the soft limit, so the task records its stop before any kill
POLL_SECONDS = 0.2
SITE_PAGES = ("a", "b", "c", "d")  # linked from the home page: five pages in all


@pytest.fixture
def sync_worker(worker_processes, sync_settings) -> WorkerProcess:
    return worker_processes.get(sync_settings, TASKS_ENV)


class EndlessWiki(ConfluenceStandIn):
    """A Confluence whose search, once ``endless`` is set, answers the same pages with a next link for ever."""

    endless = False

    def _search(self):
        answer = super()._search()
        if self.endless:
            asked = flask.request.args
            answer["_links"]["next"] = "/rest/api/content/search?" + urlencode(
                {**asked, "turn": int(asked.get("turn", 0)) + 1})
        return answer


@pytest.fixture
def wiki(sources, stores, sync_settings, request):
    """The samples' wiki on a stand-in, registered as a source named after the test; removed after."""
    standin = EndlessWiki(WIKI / "pages", WIKI / "users.json").start()
    name = request.node.name.replace("test_", "")[:40]
    registry.register(sources, name, "confluence",
                      {"url": standin.url, "deployment": "cloud", "token_env": "WIKI_TOKEN", "user_env": "WIKI_USER",
                       "spaces": sorted(standin.spaces)})
    yield standin, name
    registry.remove(sources, stores, sync_settings, name)
    standin.stop()


def source_errors(sync_jobs, name: str) -> list[str]:
    return [e["reason"] for e in sync_jobs.recent_errors() if e["job"] == f"source:{name}"]


def wait_for_syncs(sources, name: str, syncs: int) -> dict:
    deadline = time.monotonic() + SYNC_WAIT
    while sources.state(name)["syncs"] < syncs:
        assert time.monotonic() < deadline, f"sync of {name} did not finish: {sources.checkpoint(name)}"
        time.sleep(POLL_SECONDS)
    return sources.state(name)["last"]


def test_a_sync_stopped_by_its_soft_time_limit_is_recorded_and_continued(wiki, sync_worker, sources, sync_jobs,
                                                                        stores, sync_settings):
    standin, name = wiki
    limited = {"soft_time_limit": SOFT_LIMIT, "time_limit": HARD_LIMIT}
    standin.slow(SOFT_LIMIT + 1)  # the first listing answer comes after the limit: the task got nowhere
    stuck = sync_worker.app.send_task("evident.sync_source", kwargs={"name": name}, **limited).get(timeout=SYNC_WAIT)
    assert stuck["outcome"] == "failed" and f"stopped by the time limit after {SOFT_LIMIT} s" in stuck["reason"]
    assert "without getting any further" in stuck["reason"]
    time.sleep(2 * SOFT_LIMIT)  # no task is queued again for a task that got nowhere
    described = registry.describe(sources, sync_jobs, sources.get(name))
    assert not described["running"] and described["under_way"] is None  # the lock is free
    assert described["cut_short"]["error"] == stuck["reason"] and described["syncs"] == 0

    standin.slow(SOFT_LIMIT / 2)  # the listing answers in time, the next answer does not
    stopped = sync_worker.app.send_task("evident.sync_source", kwargs={"name": name}, **limited).get(timeout=SYNC_WAIT)
    standin.clear_faults()
    assert stopped["outcome"] == "stopped", stopped
    assert stopped["reason"] == (f"the sync was stopped by the time limit after {SOFT_LIMIT} s ([worker] "
                                 "soft_time_limit, EVIDENT_WORKER_SOFT_TIME_LIMIT); what it indexed stays, and it "
                                 "is continued by a new task from where it stopped")
    assert stopped["reason"] in source_errors(sync_jobs, name)
    last = wait_for_syncs(sources, name, 1)  # the task it queued, and the ones that one queued
    assert last["counts"]["added"] == WIKI_PAGES and last["counts"]["listed"] == WIKI_PAGES
    assert len({s["doc_id"] for s in indexed(stores, sync_settings, f"confluence:{name}:").values()}) == WIKI_PAGES
    described = registry.describe(sources, sync_jobs, sources.get(name))
    assert (described["running"], described["under_way"], described["cut_short"]) == (False, None, None)


def test_a_listing_that_never_ends_stops_at_the_cap_and_deletes_nothing(wiki, sync_worker, sources, sync_jobs,
                                                                       stores, sync_settings):
    standin, name = wiki
    run_sync(sync_worker, sources, name)
    standin.endless = True
    standin.clear_log()
    answer = sync_worker.app.send_task("evident.sync_source", kwargs={"name": name, "full": True}
                                       ).get(timeout=SYNC_WAIT)  # full: every answer lists all five pages
    assert answer["outcome"] == "failed", answer
    assert f"source {name!r}: its listing went past {LISTED_CAP} ids in one sync ([sources] max_listed_per_sync, " \
           "EVIDENT_SOURCES_MAX_LISTED_PER_SYNC)" in answer["reason"]
    assert standin.count("/rest/api/content/search") == LISTED_CAP // WIKI_PAGES + 1  # the answer past the cap
    state = sources.state(name)
    assert state["syncs"] == 2 and state["last"]["error"] == answer["reason"] in source_errors(sync_jobs, name)
    assert not sources.checkpoint(name) and not standin.bodies_fetched()  # ended: nothing indexed, nothing queued
    assert len({s["doc_id"] for s in indexed(stores, sync_settings, f"confluence:{name}:").values()}) == WIKI_PAGES


def test_removing_a_source_stops_its_sync_at_the_next_request(wiki, sync_worker, sources, stores, sync_settings):
    standin, name = wiki
    standin.slow(0.5)
    queued = sync_worker.app.send_task("evident.sync_source", kwargs={"name": name})
    deadline = time.monotonic() + SYNC_WAIT
    while not standin.bodies_fetched():
        assert time.monotonic() < deadline, "the sync did not get to the pages"
        time.sleep(POLL_SECONDS / 4)
    asked = len(standin.log)
    registry.remove(sources, stores, sync_settings, name)
    answer = queued.get(timeout=SYNC_WAIT)
    assert answer["outcome"] == "cancelled", answer
    assert len(standin.log) - asked <= 2  # the request under way, and at most one more
    assert sources.get(name) is None and not sources.checkpoint(name) and not sources.items(name)
    assert not sources.lock(name, 1).locked()
    assert not indexed(stores, sync_settings, f"confluence:{name}:")  # what it wrote left with the source


def write_site(root) -> None:
    links = "".join(f'<li><a href="{page}.html">Page {page}</a></li>' for page in SITE_PAGES)
    (root / "index.html").write_text(f"<html><head><title>Home</title></head><body><h1>Home</h1><p>The canteen "
                                     f"handbook, in four parts.</p><ul>{links}</ul></body></html>")
    for page in SITE_PAGES:
        write_site_page(root, page, "The canteen opens at half past eleven and closes at two.")


def write_site_page(root, page: str, text: str) -> None:
    (root / f"{page}.html").write_text(f"<html><head><title>Part {page}</title></head><body><h1>Part {page}</h1>"
                                       f"<p>{text} This is part {page} of the canteen handbook.</p></body></html>")


def test_a_site_crawl_is_handed_from_task_to_task_with_its_frontier(tmp_path, sync_worker, sources, stores,
                                                                   sync_settings):
    write_site(tmp_path)
    with SiteStandIn(tmp_path) as site:
        registry.register(sources, "canteen", "site", {"start": site.url + "/"})
        try:
            first = sync_worker.app.send_task("evident.sync_source", kwargs={"name": "canteen"}).get(timeout=SYNC_WAIT)
            assert first["outcome"] == "continued"
            last = wait_for_syncs(sources, "canteen", 1)
            assert last["counts"]["added"] == 1 + len(SITE_PAGES)
            served = [s.path for s in site.served]
            assert served.count("/robots.txt") == 3 and served.count("/sitemap.xml") == 1  # three tasks, one crawl
            pages = [p for p in served if p.endswith((".html", "/"))]
            assert sorted(pages) == sorted(["/", *(f"/{p}.html" for p in SITE_PAGES)])  # each page once

            for page in SITE_PAGES[:3]:
                write_site_page(tmp_path, page, "The canteen now opens at noon.")
            (tmp_path / f"{SITE_PAGES[3]}.html").unlink()
            last = run_sync(sync_worker, sources, "canteen")  # three pages indexed: two tasks
            assert (last["counts"]["updated"], last["counts"]["deleted"], last["counts"]["unchanged"]) == (3, 1, 1)
            texts = [s["text"] for s in indexed(stores, sync_settings).values() if s["url"] == site.url + "/a.html"]
            assert any("noon" in text for text in texts)

            site.served.clear()
            last = run_sync(sync_worker, sources, "canteen", full=True)  # every page again, and the link to d
            assert last["full"] and (last["counts"]["updated"], last["counts"]["failed"]) == (4, 1)
            assert [s.path for s in site.served].count("/robots.txt") == 3
        finally:
            registry.remove(sources, stores, sync_settings, "canteen")
