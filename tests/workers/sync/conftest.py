"""Syncs through a real worker process: its own index alias and Redis database, so a test can kill it with
SIGKILL without touching the session's worker, and the Confluence and site stand-ins on loopback. The modules
share the alias, the database and the worker (``worker_processes``); each test registers sources of its own
and removes them, with what they indexed, when it ends."""
from __future__ import annotations

import os
import time

import pytest
from opensearchpy import helpers

from tests.conftest import TEST_ALIAS, TEST_REDIS_DB
from tests.standins import STANDIN_HOSTS
from tests.standins.confluence import TOKEN, USER
from tests.standins.wiki import wiki_folder
from tests.workers.worker_process import WorkerProcess, isolated_settings

SYNC_ALIAS = f"sync-{TEST_ALIAS}"  # not under TEST_ALIAS-*: index templates may not overlap
SYNC_REDIS_DB = int(os.environ.get("EVIDENT_TEST_SYNC_REDIS_DB", (TEST_REDIS_DB + 8) % 16))  # away from 0, the stack's
WIKI = wiki_folder()
PDFS = WIKI / "pdf"
# The worker's settings: a short lock so a killed worker's sync is taken over within seconds, a small page
# budget so continuations happen on the wiki's 29 pages, no pace (the stand-in is local), a 200 kB attachment
# limit, the stand-ins' loopback allowed; no sentence view: these tests are about what a sync loses or repeats,
# and the view is tested through the session's worker. One pool process: a sync runs one task at a time anyway,
# and each process loads the models at every start (the kill tests start it four times).
WORKER_ENV = {"EVIDENT_SEARCH_SENTENCE_WEIGHT": "0",
              "EVIDENT_SERVICES_WORKER_CONCURRENCY": "1",
              "EVIDENT_SOURCES_LOCK_SECONDS": "6", "EVIDENT_SOURCES_ITEMS_PER_TASK": "15",
              "EVIDENT_SOURCES_REQUESTS_PER_SECOND": "0", "EVIDENT_SOURCES_MAX_ATTACHMENT_BYTES": "200000",
              "EVIDENT_SOURCES_OVERLAP_SECONDS": "120",
              "EVIDENT_SOURCES_ALLOWED_PRIVATE_HOSTS": ",".join(STANDIN_HOSTS),
              "WIKI_TOKEN": TOKEN, "WIKI_USER": USER}
SYNC_WAIT = 600  # seconds a sync of the test wiki may take here, retries and a 429 storm included


@pytest.fixture(scope="session")
def sync_settings(settings, stores):
    return isolated_settings(settings, stores, SYNC_ALIAS, SYNC_REDIS_DB)


@pytest.fixture
def sync_worker(worker_processes, sync_settings) -> WorkerProcess:
    """The sync modules' worker process, running (started again after a test killed it)."""
    return worker_processes.get(sync_settings, WORKER_ENV)


@pytest.fixture(scope="module")
def sources(sync_settings):
    from core.sources import SourceStore

    return SourceStore.from_url(sync_settings.redis.url)


@pytest.fixture(scope="module")
def sync_jobs(sync_settings):
    from core.jobs import JobStore

    return JobStore.from_settings(sync_settings)


def run_sync(worker: WorkerProcess, sources, name: str, full: bool = False, timeout: float = SYNC_WAIT) -> dict:
    """Queue a sync and wait until the source records it finished; a ``busy`` answer (a dead worker's
    lock not yet expired) is asked again."""
    before = sources.state(name)["syncs"]
    deadline = time.monotonic() + timeout
    while True:
        answer = worker.app.send_task("evident.sync_source", kwargs={"name": name, "full": full}).get(timeout=timeout)
        if answer["outcome"] != "busy":
            break
        assert time.monotonic() < deadline, "the source stayed locked"
        time.sleep(1)
    assert answer["outcome"] in ("done", "continued"), answer
    while sources.state(name)["syncs"] == before:
        assert not sources.checkpoint(name).get("error"), sources.checkpoint(name)
        assert time.monotonic() < deadline, f"sync of {name} did not finish"
        time.sleep(0.5)
    return sources.state(name)["last"]


def indexed(client, settings, prefix: str = "") -> dict[str, dict]:
    """Every evidence of the sync index (optionally of documents whose id starts with ``prefix``)."""
    client.indices.refresh(index=settings.opensearch.index_alias)
    query = {"query": {"prefix": {"doc_id": prefix}}} if prefix else {"query": {"match_all": {}}}
    return {hit["_id"]: hit["_source"] for hit in helpers.scan(
        client, index=settings.opensearch.index_alias, query=query,
        _source=["doc_id", "kind", "text", "context", "title", "breadcrumb", "acl", "acl_level_*", "url"])}
