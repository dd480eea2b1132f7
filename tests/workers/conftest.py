"""What the worker tests read back: the evidence in the test index, and a sample page to edit; the worker
processes the session's modules share."""
from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLES


@pytest.fixture(scope="session")
def worker_processes():
    """``evident worker`` processes shared by the modules that ask for the same settings and environment
    (``SharedWorkers``), stopped at the end of the session."""
    from tests.workers.worker_process import SharedWorkers

    shared = SharedWorkers()
    yield shared
    shared.stop()


@pytest.fixture
def evidence_of(stores, settings):
    """The evidence in the test index (of one document when given its id), after a refresh."""
    def read(doc_id: str | None = None) -> list[dict]:
        stores.indices.refresh(index=settings.opensearch.index_alias)
        query = {"term": {"doc_id": doc_id}} if doc_id else {"match_all": {}}
        result = stores.search(index=settings.opensearch.index_alias, body={
            "query": query, "size": 10000,
            "_source": ["id", "doc_id", "kind", "text", "heading_path", "url", "summary"]})
        return [h["_source"] for h in result["hits"]["hits"]]

    return read


@pytest.fixture
def sectioned_page() -> dict:
    """A fresh copy of an open sample wiki page with two h2 sections."""
    for path in sorted((SAMPLES / "wiki" / "pages").glob("*.json")):
        page = json.loads(path.read_text(encoding="utf-8"))
        if page["body"]["storage"]["value"].count("<h2>") >= 2 and not page["restrictions"]["read"][
                "restrictions"]["group"]["results"]:
            return page
    raise AssertionError("the sample corpus needs a page with two h2 sections")


@pytest.fixture
def pruned_after(jobs, stores, settings):
    """Call it with each folder a test ingests (and the source it was given, if any): what came from there
    leaves the index when the test ends, so the tests after it search the sample corpus alone, whatever order
    they run in."""
    from workers.submit import prune

    folders: list[tuple[str, str]] = []
    yield lambda folder, source="": folders.append((str(folder), source))
    for folder, source in folders:
        prune(jobs, stores, settings, [folder], [], source)
