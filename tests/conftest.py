"""Session fixtures: the real OpenSearch and Redis (started by the project, or reused when running),
a real Celery worker in a thread, and the sample corpus ingested through it once."""
from __future__ import annotations

import contextlib
import http.server
import json
import os
import threading

import pytest

from core.settings import PROJECT_ROOT, Settings, load_settings
from tests.standins import SHUTDOWN_POLL

SAMPLES = PROJECT_ROOT / "samples"
HARBORLANE = PROJECT_ROOT / "evalsets" / "harborlane"  # a whole wiki of our own: 28 Confluence pages
# Parallel test runs on one machine each take their own alias and Redis database. So does each process of a run
# split by pytest-xdist (``make test`` runs two): "gw1" adds 1 to the alias and the databases (the modules that
# take databases of their own add 3, 5, 8 and 11 to this one, so two processes never share one).
SPLIT_PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ... in a process of a split run
_PROCESS_NUMBER = int(SPLIT_PROCESS.removeprefix("gw") or 0)
TEST_ALIAS = os.environ.get("EVIDENT_TEST_ALIAS", "evident-test") + (str(_PROCESS_NUMBER) if SPLIT_PROCESS else "")
TEST_REDIS_DB = int(os.environ.get("EVIDENT_TEST_REDIS_DB", "1")) + _PROCESS_NUMBER
# The fixtures that start or need the real OpenSearch, Redis or Celery worker. A test that uses one, itself
# or through another fixture, is marked ``services``: ``pytest -m "not services"`` runs the rest without them.
SERVICE_FIXTURES = {"stores", "celery_app", "worker", "jobs", "ingest", "sample_corpus", "searcher"}


# The modules that take a quarter of a minute or more (``--durations``), longest first, run before the rest: a split
# run hands out modules in order, and one of these left for last keeps one process busy alone while the other has
# finished.
LONG_MODULES = ("workers/sync/test_confluence_sync.py", "evident/stack/test_cluster.py",
                "workers/test_hostile_corpus.py", "workers/test_lost_tasks.py", "api/test_access.py",
                "evident/test_bench.py", "evident/stack/test_stack.py", "workers/test_tasks.py", "core/test_index.py",
                "workers/test_maintenance.py", "evident/test_serve.py", "workers/sync/test_tasks.py",
                "workers/test_keywords.py", "workers/test_identity.py")


def pytest_collection_modifyitems(items):
    for item in items:
        if SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)
    tests = PROJECT_ROOT / "tests"

    def long_first(item) -> int:
        module = item.path.relative_to(tests).as_posix() if item.path.is_relative_to(tests) else ""
        return LONG_MODULES.index(module) if module in LONG_MODULES else len(LONG_MODULES)
    items.sort(key=long_first)  # stable: the rest keep their order


STARTED = pytest.StashKey[list]()  # the services the controlling process of a split run started


def splitting(config) -> bool:
    """Whether this is the controlling process of a run split over processes that may need the services."""
    return (not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))
            and config.option.markexpr.strip() != "not services")


def pytest_sessionstart(session):
    """A split run starts OpenSearch and Redis once, in the controlling process, before its processes start (they
    reuse what answers), and stops them at its end: two processes starting one node at once would collide, and
    the first to finish would stop the other's."""
    if splitting(session.config):
        from evident.stack import launcher

        session.config.stash[STARTED] = launcher.up_stores(load_settings(environ={}))


def pytest_sessionfinish(session):
    started = session.config.stash.get(STARTED, [])
    if started and os.environ.get("EVIDENT_TEST_KEEP_SERVICES") != "1":
        from evident.stack import launcher

        launcher.stop(load_settings(environ={}), started)


@pytest.fixture(scope="session")
def settings() -> Settings:
    settings = load_settings(environ={})
    settings.opensearch.index_alias = TEST_ALIAS
    settings.opensearch.searchlog_index = f"evident-searchlog-{TEST_ALIAS}"  # the tests' searches stay apart
    settings.redis.url = f"redis://127.0.0.1:{settings.services.redis_port}/{TEST_REDIS_DB}"
    from tests.standins import STANDIN_HOSTS

    settings.sources.allowed_private_hosts = STANDIN_HOSTS  # the stand-ins serve on loopback
    # the multilingual stage, off by default (it breaks the ingest budget), on for the session's worker and searcher,
    # so its view, stage and cross-lingual list are tested
    settings.search.multilingual = True
    return settings


@pytest.fixture(scope="session")
def stores(settings):
    """OpenSearch and Redis, started when not running; a fresh test index and Redis database.

    Services this session started are stopped at its end (EVIDENT_TEST_KEEP_SERVICES=1 keeps them).
    """
    from evident.stack import launcher
    from core.index import connect, init_index
    from core.jobs import JobStore

    started = launcher.up_stores(settings)  # what already answers on its port is reused, not started
    client = connect(settings)
    for index in client.indices.get(index=f"{TEST_ALIAS}-*", ignore_unavailable=True) or {}:
        client.indices.delete(index=index)
    client.indices.delete(index=settings.opensearch.searchlog_index, ignore_unavailable=True)
    init_index(client, settings)
    JobStore.from_url(settings.redis.url).clear_database()
    yield client
    if os.environ.get("EVIDENT_TEST_KEEP_SERVICES") != "1":
        launcher.stop(settings, started)


@pytest.fixture(scope="session")
def celery_app(settings, stores):
    from workers.app import create_app

    return create_app(settings)


@pytest.fixture(scope="session")
def worker(celery_app):
    """A real Celery worker consuming from the real Redis broker (not eager mode)."""
    from celery.contrib.testing.worker import start_worker

    import workers.tasks  # noqa: F401 - registers the tasks with the app
    from core.jobs import INGEST_QUEUE

    with start_worker(celery_app, pool="solo", concurrency=1, perform_ping_check=False, loglevel="WARNING",
                      queues=[INGEST_QUEUE], shutdown_timeout=60):
        yield celery_app


@pytest.fixture(scope="session")
def jobs(settings, stores):
    from core.jobs import JobStore

    return JobStore.from_settings(settings)


@pytest.fixture(scope="session")
def ingest(worker, jobs):
    """Queue paths through the worker and wait: returns the finished JobStatus."""
    from workers.folder import discover
    from workers.submit import queue_files, wait_for_job

    def run(*paths, force=False, timeout=900, source=""):
        files, missing, _skipped = discover([str(p) for p in paths], source)
        assert not missing, missing
        job_id = queue_files(worker, jobs, files, force=force)
        status = wait_for_job(jobs, job_id, timeout)
        assert status.finished, f"job {job_id} did not finish: {status}"
        return status

    return run


@pytest.fixture(scope="session")
def sample_corpus(ingest, stores, settings):
    """The bundled sample corpus, ingested once for the session."""
    status = ingest(SAMPLES)
    stores.indices.refresh(index=settings.opensearch.index_alias)
    return status


@pytest.fixture(scope="session")
def searcher(settings, stores):
    from search.searcher import Searcher

    return Searcher.from_settings(settings, stores)


class StandIn(http.server.BaseHTTPRequestHandler):
    """A loopback stand-in for a service that cannot run here (an LLM endpoint, an SSO provider)."""

    def answer(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serving(handler: type[StandIn]):
    """Serve ``handler`` on a free loopback port for the block; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


@pytest.fixture
def endpoint():
    """A stand-in chat endpoint: answers with ``answer["content"]`` and records the requests it got."""
    requests: list[dict] = []
    answer = {"content": ""}

    class Handler(StandIn):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            self.answer(200, json.dumps({"choices": [{"message": {"role": "assistant",
                                                                  "content": answer["content"]}}]}).encode())

    with serving(Handler) as url:
        yield url, requests, answer
