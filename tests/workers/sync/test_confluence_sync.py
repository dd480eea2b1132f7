"""A Confluence kept in sync through the real worker, Redis and OpenSearch, against the stand-in wiki."""
from __future__ import annotations

import json
import time

import pytest

from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from search.retrievers import acl_filter
from tests.standins.confluence import ConfluenceStandIn
from tests.standins.wiki import ENGINEERING_HOME, LARGE_PDF, SMALL_PDF
from tests.workers.sync.conftest import PDFS, WIKI, indexed, run_sync
from text.lemmas import Lemmatizer
from workers.sync import registry

ATTACHED = {ENGINEERING_HOME: [SMALL_PDF, LARGE_PDF]}  # the second is over the worker's attachment limit
KILL_AFTER_BODIES = (0, 15, 22)  # moments of the kill: in the listing, at and past a continuation
# The storm's Retry-After: 0 has the client ask again at once, so the storm refuses a third of the sync's requests
# without adding a second of sleep for each (urllib3 waits what the header says, a whole number of seconds).
STORM_RETRY_AFTER = 0


def wiki_pages() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((WIKI / "pages").glob("*.json"))}


def reference_evidence(settings, source: str) -> dict[str, tuple]:
    """What the folder ingest makes of the wiki's pages, as pages of ``source`` (a document's id names its source,
    the page id is the rest): evidence id -> (kind, text, context, title)."""
    users = {u["accountId"]: u["displayName"]
             for u in json.loads((WIKI / "users.json").read_text(encoding="utf-8"))["results"]}
    lemmatizer, found = Lemmatizer(), {}
    for path in sorted((WIKI / "pages").glob("*.json")):
        _parsed, evidence = evidence_for(SourceFile(name=path.name, data=path.read_bytes(), users=users, source=source),
                                         settings.ingest, lemmatizer)
        found.update({e.id: (e.kind, e.text, e.context, e.title) for e in evidence})
    return found


def as_reference(found: dict[str, dict]) -> dict[str, tuple]:
    return {i: (s["kind"], s["text"], s["context"], s["title"]) for i, s in found.items()}


def readers(client, settings, doc_id: str, principals: list[str]) -> bool:
    """Whether a caller with these principals finds any evidence of the document."""
    client.indices.refresh(index=settings.opensearch.index_alias)
    body = {"size": 0, "query": {"bool": {"filter": [{"term": {"doc_id": doc_id}}, acl_filter(principals)]}}}
    return client.search(index=settings.opensearch.index_alias, body=body)["hits"]["total"]["value"] > 0


@pytest.fixture
def wiki(sources, stores, sync_settings, request):
    """A fresh stand-in wiki registered as a source named after the test; removed (and unindexed) after."""
    standin = ConfluenceStandIn(WIKI / "pages", WIKI / "users.json", PDFS, attach=ATTACHED).start()
    name = request.node.name.replace("test_", "")[:40].replace("[", "-").replace("]", "")
    registry.register(sources, name, "confluence",
                      {"url": standin.url, "deployment": "cloud", "token_env": "WIKI_TOKEN", "user_env": "WIKI_USER",
                       "spaces": sorted(standin.spaces), "attachments": ["pdf"]})
    yield standin, name
    registry.remove(sources, stores, sync_settings, name)
    standin.stop()


def test_a_full_sync_indexes_what_the_folder_ingest_does(wiki, sync_worker, sources, stores, sync_settings):
    standin, name = wiki
    started = time.monotonic()
    last = run_sync(sync_worker, sources, name)
    pages = indexed(stores, sync_settings, f"confluence:{name}:")
    assert as_reference(pages) == reference_evidence(sync_settings, name)
    assert {s["url"].split("#")[0] for s in pages.values()} == \
        {p["_links"]["base"] + p["_links"]["webui"] for p in wiki_pages().values()}
    assert last["counts"]["added"] == len(wiki_pages())
    print(f"\nfull sync: {len(wiki_pages())} pages, {len(pages)} evidence, {last['counts']['requests']} requests, "
          f"{time.monotonic() - started:.0f} s, counts {last['counts']}")


def test_attachments_are_documents_under_their_page(wiki, sync_worker, sources, sync_jobs, stores, sync_settings):
    standin, name = wiki
    run_sync(sync_worker, sources, name)
    manual = [s for s in indexed(stores, sync_settings, "pdf:").values() if SMALL_PDF in s["doc_id"]]
    assert manual and all(s["breadcrumb"] == ["Engineering Home"] for s in manual)
    assert all(s["url"].startswith(f"{standin.url}/download/attachments/{ENGINEERING_HOME}/") for s in manual)
    skipped = [e for e in sync_jobs.recent_errors()
               if e["job"] == f"source:{name}" and LARGE_PDF in e["file"]]
    assert skipped and skipped[0]["reason"].startswith("skipped:")
    standin.clear_log()
    run_sync(sync_worker, sources, name)
    assert standin.count("/download/") == 0  # unchanged versions are not downloaded again


def test_incremental_syncs_follow_edits_deletions_and_restrictions(wiki, sync_worker, sources, stores, sync_settings):
    standin, name = wiki
    run_sync(sync_worker, sources, name)
    pages = wiki_pages()
    parent = next(i for i, p in pages.items() if any(a["id"] == i for q in pages.values() for a in q["ancestors"]))
    child = next(i for i, p in pages.items() if p["ancestors"] and p["ancestors"][-1]["id"] == parent)
    edited, deleted, archived = [i for i in pages if i not in (parent, child)][-3:]

    standin.clear_log()
    last = run_sync(sync_worker, sources, name)
    assert standin.bodies_fetched() == [] and last["counts"].get("updated", 0) == 0

    standin.edit(edited, body="<p>The quarterly zeppelin inventory moved to the Harbour building.</p>")
    standin.delete(deleted)
    standin.archive(archived)
    standin.restrict(parent, groups=["leadership"])
    standin.clear_log()
    last = run_sync(sync_worker, sources, name)
    assert edited in standin.bodies_fetched()
    assert last["counts"]["deleted"] == 2
    texts = [s["text"] for s in indexed(stores, sync_settings, f"confluence:{name}:{edited}").values()]
    assert any("zeppelin" in t for t in texts)
    assert not indexed(stores, sync_settings, f"confluence:{name}:{deleted}")
    assert not indexed(stores, sync_settings, f"confluence:{name}:{archived}")
    for doc in (parent, child):
        assert not readers(stores, sync_settings, f"confluence:{name}:{doc}", ["eng", "user:someone"])
        assert readers(stores, sync_settings, f"confluence:{name}:{doc}", ["leadership"])

    standin.unrestrict(parent)
    run_sync(sync_worker, sources, name)
    for doc in (parent, child):
        assert readers(stores, sync_settings, f"confluence:{name}:{doc}", [])


def test_a_429_storm_ends_in_a_complete_index(wiki, sync_worker, sources, stores, sync_settings):
    standin, name = wiki
    standin.fail_every(3, status=429, retry_after=STORM_RETRY_AFTER)
    started = time.monotonic()
    last = run_sync(sync_worker, sources, name)
    throttled = sum(1 for entry in standin.log if entry.status == 429)
    assert throttled > 0
    assert as_reference(indexed(stores, sync_settings, f"confluence:{name}:")) == \
        reference_evidence(sync_settings, name)
    print(f"\n429 storm: {last['counts']['requests']} requests, {throttled} answered 429, "
          f"{time.monotonic() - started:.0f} s")


@pytest.mark.parametrize("bodies", KILL_AFTER_BODIES)
def test_a_worker_killed_mid_sync_loses_and_duplicates_nothing(bodies, wiki, sync_worker, sources, stores,
                                                             sync_settings):
    standin, name = wiki
    sync_worker.app.send_task("evident.sync_source", kwargs={"name": name})
    deadline = time.monotonic() + 300
    while len(standin.bodies_fetched()) < bodies or not standin.count("/rest/api/content/search"):
        assert time.monotonic() < deadline, "the sync did not get that far"
        time.sleep(0.05)
    sync_worker.kill()
    at_kill = len(standin.bodies_fetched())
    sync_worker.start()
    run_sync(sync_worker, sources, name)
    found = indexed(stores, sync_settings, f"confluence:{name}:")
    reference = reference_evidence(sync_settings, name)
    lost, extra = set(reference) - set(found), set(found) - set(reference)
    print(f"\nkilled after {at_kill} page bodies, {len(standin.bodies_fetched())} fetched in all: lost {len(lost)}, "
          f"duplicated or stale {len(extra)}")
    assert not lost and not extra
    assert as_reference(found) == reference
