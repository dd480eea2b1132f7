"""Near-duplicate pages through the real worker, OpenSearch and ``Searcher``: a page and its "Copy of" in a
personal space come back as one result with the copy listed under it; a copy the caller may not read is never
listed; with the setting or the request switch off, every copy is a result of its own."""
from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from search.searcher import SearchRequest, Searcher

WIKI = "https://wiki.example.org"
CHECKLIST = [
    "Kelpie gateway rollouts start with a dry run on the staging rack in the harbour lab.",
    "The release captain posts the rollout window in the operations channel one day ahead.",
    "Before the first buoy is switched, export the gateway configuration and attach it to the change ticket.",
    "Roll out to the three canary buoys first and watch their telemetry for thirty minutes.",
    "If the canaries report stale salinity readings, stop the rollout and restore the exported configuration.",
    "After the canaries, switch the remaining buoys in batches of ten, one batch every fifteen minutes.",
    "When the last batch reports, close the change ticket with the final firmware build number.",
    "Any rollback is written up in the postmortem space within two working days.",
]
UNRELATED = ("Parking at the harbour office: the yard behind the loading dock has twelve spaces for visitors and "
             "staff with a permit. Permits are handed out by reception for one year and renewed every January. "
             "Bicycles go to the cellar, scooters to the covered racks by the gate, and delivery vans keep the "
             "loading bay free between seven and nine in the morning.")


def confluence_page(page_id: str, title: str, space: str, paragraphs: list[str], created: str, updated: str,
                    read_groups: tuple[str, ...] = ()) -> dict:
    """A page as Confluence's REST API returns it with history and read restrictions expanded."""
    return {
        "id": page_id, "type": "page", "status": "current", "title": title,
        "space": {"key": space, "name": space, "type": "personal" if space.startswith("~") else "global"},
        "ancestors": [],
        "history": {"createdDate": created, "createdBy": {"displayName": "Jana Doe"}},
        "version": {"number": 2, "when": updated, "by": {"displayName": "Jana Doe"}},
        "metadata": {"labels": {"results": []}},
        "restrictions": {"read": {"operation": "read", "restrictions": {
            "user": {"results": []}, "group": {"results": [{"type": "group", "name": g} for g in read_groups]}}}},
        "body": {"storage": {"value": "".join(f"<p>{p}</p>" for p in paragraphs), "representation": "storage"}},
        "_links": {"base": WIKI, "webui": f"/spaces/{space}/pages/{page_id}"},
    }


PAGES = [
    confluence_page("9100001", "Kelpie Gateway Rollout Checklist", "OPS", CHECKLIST, "2023-02-01T09:00:00.000Z",
                    "2024-06-03T10:00:00.000Z"),
    confluence_page("9100002", "Copy of Kelpie Gateway Rollout Checklist", "~jdoe", CHECKLIST,
                    "2024-07-15T08:30:00.000Z", "2024-07-15T08:30:00.000Z"),
    confluence_page("9100003", "Copy of Kelpie Gateway Rollout Checklist", "~mroe", CHECKLIST,
                    "2024-08-01T08:30:00.000Z", "2024-08-01T08:30:00.000Z", read_groups=("release-captains",)),
    confluence_page("9100004", "Parking at the Harbour Office", "OPS", [UNRELATED], "2022-05-01T08:00:00.000Z",
                    "2024-01-09T08:00:00.000Z"),
]
QUERY = "kelpie gateway rollout canary buoys"
ORIGINAL, JDOE_COPY, MROE_COPY = (f"{WIKI}/spaces/{p['space']['key']}/pages/{p['id']}" for p in PAGES[:3])


@contextmanager
def ingested_pages(ingest, jobs, stores, settings, folder, pages: list[dict]) -> Iterator[None]:
    """Write ``pages`` as Confluence export files into ``folder`` and ingest them through the worker; they leave the
    index afterwards, so the tests after them search the sample corpus alone, whatever order they run in."""
    from workers.submit import prune

    for page in pages:
        (folder / f"{page['id']}.json").write_text(json.dumps(page), encoding="utf-8")
    status = ingest(folder)
    try:
        assert status.done == len(pages) and not status.errors, status
        yield
    finally:
        prune(jobs, stores, settings, [str(folder)], [])


@pytest.fixture(scope="module")
def copies(ingest, jobs, stores, settings, tmp_path_factory):
    with ingested_pages(ingest, jobs, stores, settings, tmp_path_factory.mktemp("near-duplicates"), PAGES):
        yield


def copy_urls(hit) -> list[str]:
    return [d["url"] for d in hit.duplicates]


def test_a_copy_in_a_personal_space_is_listed_under_its_original(copies, searcher):
    hits = searcher.search(SearchRequest(query=QUERY)).hits
    kelpie = [h for h in hits if "Kelpie" in h.title]
    assert [h.url for h in kelpie] == [ORIGINAL]
    assert kelpie[0].duplicates == [{"url": JDOE_COPY, "title": "Copy of Kelpie Gateway Rollout Checklist",
                                     "space": "~jdoe", "updated": "2024-07-15T08:30:00.000Z"}]


def test_a_copy_the_caller_may_not_read_is_never_listed(copies, searcher):
    public = searcher.search(SearchRequest(query=QUERY)).hits[0]
    captain = searcher.search(SearchRequest(query=QUERY, groups=["release-captains"])).hits[0]
    assert MROE_COPY not in copy_urls(public)
    assert captain.url == ORIGINAL and sorted(copy_urls(captain)) == [JDOE_COPY, MROE_COPY]


def test_with_collapsing_off_each_copy_is_a_result(copies, searcher):
    settings = copy.deepcopy(searcher.settings)
    settings.search.collapse_duplicates = False
    uncollapsed = Searcher(settings, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon)
    for answer in (uncollapsed.search(SearchRequest(query=QUERY)),
                   searcher.search(SearchRequest(query=QUERY, collapse_duplicates=False))):
        kelpie = [h for h in answer.hits if "Kelpie" in h.title]
        assert sorted(h.url for h in kelpie) == sorted([ORIGINAL, JDOE_COPY])
        assert all(not h.duplicates for h in answer.hits)
