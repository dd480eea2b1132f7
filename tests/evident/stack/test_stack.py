"""The local stack: real OpenSearch (k-NN lucene, neural-search hybrid), Redis and a worker under supervisord.

Plugin and query checks use the session's node (tests/conftest.py ``stores``: started through
evident.stack.launcher, or reused when already answering). Start, stop, crash and busy-port tests
run their own processes on other ports with a temporary state dir, so they never disturb the
session's services. Downloads are checked against a loopback stand-in for Maven Central.
"""
from __future__ import annotations

import hashlib
import http.server
import os
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest
import redis as redis_py

from evident.stack import ServiceError, launcher, maven, opensearch
from evident.stack.supervisor import Program, Supervisor, render_program
from tests.evident.stack.conftest import free_port, request_json
from tests.standins import SHUTDOWN_POLL

services = pytest.mark.services
OWN_OPENSEARCH_PORT = 9211  # the up/down test's node, beside the session's
OWN_REDIS_PORT = 6391  # the up/down tests' Redis, beside the session's
WORKER_TASK_WAIT = 300  # seconds a fresh worker may take to load its models and run one small task


# ------------------------------------------------------------------ helpers


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _NotAService(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html>hello</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _serve(handler, directory: Path | None = None):
    if directory is not None:
        factory = lambda *a, **k: handler(*a, directory=str(directory), **k)  # noqa: E731
    else:
        factory = handler
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), factory)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    return server


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def opensearch_url(stores, settings) -> str:
    status = launcher.part_status(settings, "opensearch")
    assert status.running and status.facts["health"] in ("green", "yellow")
    return status.url


@pytest.fixture
def index(opensearch_url):
    name = f"evident-test-services-{uuid.uuid4().hex[:8]}"
    request_json(opensearch_url, "PUT", f"/{name}", {
        "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {"properties": {
            "text": {"type": "text", "analyzer": "english"},
            "vector": {"type": "knn_vector", "dimension": 4,
                       "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}},
        }},
    })
    docs = {
        "north": {"text": "the running dogs of the north", "vector": [1.0, 0.0, 0.0, 0.0]},
        "east": {"text": "a cat sleeping in the east", "vector": [0.0, 1.0, 0.0, 0.0]},
        "south": {"text": "a dog runs south", "vector": [0.0, 0.0, 1.0, 0.0]},
    }
    for doc_id, doc in docs.items():
        request_json(opensearch_url, "PUT", f"/{name}/_doc/{doc_id}", doc)
    request_json(opensearch_url, "POST", f"/{name}/_refresh")
    yield name
    request_json(opensearch_url, "DELETE", f"/{name}")


# -------------------------------------------------------------- OpenSearch


@services
def test_knn_lucene_returns_nearest_doc(opensearch_url, index):
    result = request_json(opensearch_url, "POST", f"/{index}/_search", {
        "size": 3, "query": {"knn": {"vector": {"vector": [0.1, 0.05, 0.9, 0.0], "k": 3}}}})
    ids = [hit["_id"] for hit in result["hits"]["hits"]]
    assert ids[0] == "south"
    assert set(ids) == {"north", "east", "south"}


@services
def test_plugins_and_modules_present(opensearch_url):
    plugins = request_json(opensearch_url, "GET", "/_nodes/plugins")
    node = next(iter(plugins["nodes"].values()))
    names = {p["name"] for p in node["plugins"]}
    modules = {m["name"] for m in node["modules"]}
    assert {"opensearch-knn", "opensearch-neural-search"} <= names
    assert set(opensearch.REQUIRED_MODULES) <= modules
    assert node["version"] == opensearch.opensearch_version()  # the one in .env


@services
def test_hybrid_query_with_rrf_pipeline(opensearch_url, index):
    pipeline = f"evident-test-rrf-{uuid.uuid4().hex[:6]}"
    request_json(opensearch_url, "PUT", f"/_search/pipeline/{pipeline}", {
        "phase_results_processors": [
            {"score-ranker-processor": {"combination": {"technique": "rrf", "rank_constant": 60}}}]})
    try:
        result = request_json(opensearch_url, "POST", f"/{index}/_search?search_pipeline={pipeline}", {
            "size": 3,
            "query": {"hybrid": {"queries": [
                {"match": {"text": "run south"}},  # english stemmer: running, runs -> run
                {"knn": {"vector": {"vector": [0.0, 0.1, 1.0, 0.0], "k": 3}}},
            ]}},
        })
    finally:
        request_json(opensearch_url, "DELETE", f"/_search/pipeline/{pipeline}")
    hits = result["hits"]["hits"]
    # "south" is first in both lists: RRF score 2/(60+1); nobody can score higher.
    assert hits[0]["_id"] == "south"
    assert hits[0]["_score"] == pytest.approx(2 / 61, rel=1e-3)
    assert all(hit["_score"] <= 2 / 61 + 1e-6 for hit in hits)


@services
def test_hybrid_query_with_normalization_pipeline(opensearch_url, index):
    pipeline = f"evident-test-norm-{uuid.uuid4().hex[:6]}"
    request_json(opensearch_url, "PUT", f"/_search/pipeline/{pipeline}", {
        "phase_results_processors": [{"normalization-processor": {
            "normalization": {"technique": "min_max"},
            "combination": {"technique": "arithmetic_mean", "parameters": {"weights": [0.3, 0.7]}},
        }}]})
    try:
        result = request_json(opensearch_url, "POST", f"/{index}/_search?search_pipeline={pipeline}", {
            "size": 3,
            "query": {"hybrid": {"queries": [
                {"match": {"text": "cat"}},
                {"knn": {"vector": {"vector": [0.9, 0.2, 0.0, 0.0], "k": 3}}},
            ]}},
        })
    finally:
        request_json(opensearch_url, "DELETE", f"/_search/pipeline/{pipeline}")
    hits = result["hits"]["hits"]
    # Scores are normalized into [0, 1]; the vector side (weight 0.7) favours "north".
    assert hits[0]["_id"] == "north"
    assert all(0.0 <= hit["_score"] <= 1.0 + 1e-6 for hit in hits)


@services
def test_analysis_common_painless_and_ingest_modules(opensearch_url, index):
    tokens = request_json(opensearch_url, "POST", "/_analyze", {
        "char_filter": ["html_strip"], "tokenizer": "standard",
        "filter": ["lowercase", {"type": "stemmer", "language": "light_german"}],
        "text": "<p>Die <b>Häuser</b></p>"})
    assert [t["token"] for t in tokens["tokens"]] == ["die", "haus"]
    scored = request_json(opensearch_url, "POST", f"/{index}/_search", {
        "query": {"script_score": {"query": {"match_all": {}},
                                   "script": {"source": "params.base + 1", "params": {"base": 41}}}}})
    assert scored["hits"]["hits"][0]["_score"] == 42.0
    simulated = request_json(opensearch_url, "POST", "/_ingest/pipeline/_simulate", {
        "pipeline": {"processors": [{"lowercase": {"field": "t"}}, {"trim": {"field": "t"}}]},
        "docs": [{"_source": {"t": "  HeLLo "}}]})
    assert simulated["docs"][0]["doc"]["_source"]["t"] == "hello"


# ------------------------------------------------------- up, down, status


@services
def test_up_reuses_the_session_stores(stores, settings):
    # Both answer already: nothing is started, and no supervisord is needed for them.
    assert launcher.up_stores(settings) == []
    report = launcher.status(settings)
    assert report["opensearch"][0] and report["redis"][0]
    client = redis_py.Redis.from_url(settings.redis.url)
    key = f"evident-test-{uuid.uuid4().hex[:8]}"
    assert client.set(key, "v", ex=60) and client.get(key) == b"v"


@services
def test_opensearch_up_status_down_on_its_own_port(own, stores, settings):
    own.services.opensearch_port = OWN_OPENSEARCH_PORT
    own.opensearch.url = f"http://127.0.0.1:{OWN_OPENSEARCH_PORT}"
    own.services.redis_port = settings.services.redis_port  # the session's: reused
    own.redis.url = settings.redis.url
    assert launcher.up_stores(own) == ["opensearch"]
    report = launcher.status(own)
    assert report["opensearch"][0] and "supervisord: RUNNING" in report["opensearch"][1]
    assert report["redis"][0] and "not started by evident" in report["redis"][1]
    pid = Supervisor(Path(own.services.state_dir)).info("opensearch")["pid"]
    if os.geteuid() == 0:  # OpenSearch refuses root: supervisord runs it as the service user
        assert Path(f"/proc/{pid}").stat().st_uid == opensearch.ensure_service_user()[0]
    node = next(iter(request_json(own.opensearch.url, "GET", "/_nodes/plugins")["nodes"].values()))
    assert "opensearch-neural-search" in {p["name"] for p in node["plugins"]}

    assert launcher.up_stores(own) == []  # idempotent: the same process goes on
    assert Supervisor(Path(own.services.state_dir)).info("opensearch")["pid"] == pid
    launcher.down(own)
    assert not _alive(pid) and not launcher.status(own)["opensearch"][0]
    assert launcher.part_status(settings, "redis").running  # the session's Redis was left alone


@services
def test_redis_kept_by_supervisord(own):
    own.services.redis_port = OWN_REDIS_PORT
    own.redis.url = f"redis://127.0.0.1:{OWN_REDIS_PORT}/0"
    assert launcher.up(own, ("redis",)) == ["redis"]
    sv = Supervisor(Path(own.services.state_dir))
    pid = sv.info("redis")["pid"]
    assert redis_py.Redis(port=OWN_REDIS_PORT).ping()
    time.sleep(3)  # past its startsecs: supervisord counts it as up, so a death is unexpected
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not (sv.info("redis")["pid"] not in (0, pid) and launcher.redis.ready(OWN_REDIS_PORT)):
        assert time.monotonic() < deadline, sv.info("redis")
        time.sleep(0.5)
    launcher.stop(own, ["redis"])  # what we started; supervisord goes with its last program
    assert not sv.running() and not launcher.redis.ready(OWN_REDIS_PORT)


@services
def test_worker_and_beat_run_under_supervisord(own, capsys):
    own.services.worker_concurrency = 1  # one pool process loading the models is enough here
    assert launcher.up(own, ("redis", "worker", "beat")) == ["redis", "worker", "beat"]
    sv = Supervisor(Path(own.services.state_dir))
    deadline = time.monotonic() + 120
    # Celery's lines once the worker consumes and beat has its schedule
    while "ready." not in sv.log_tail("worker", 200) or "beat: Starting" not in sv.log_tail("beat", 200):
        assert time.monotonic() < deadline, sv.log_tail("worker", 40) + sv.log_tail("beat", 40)
        time.sleep(1)
    assert f":{own.services.redis_port}/0" in sv.log_tail("worker", 200)  # its broker is our Redis
    assert launcher.status(own)["worker"][0] and launcher.status(own)["beat"][0]
    pids = [sv.info(name)["pid"] for name in ("redis", "worker", "beat")]
    # A task done: its pool process loaded the models (the venv, the embedding model, spaCy's data) first.
    from workers.app import create_app

    assert create_app(own).send_task("evident.schedule_sources").get(timeout=WORKER_TASK_WAIT) == []  # no source is due
    if os.geteuid() == 0:  # under root the service user runs them, at home in the state dir: never root
        runs_as = opensearch.ensure_service_user()[0]
        assert "run as root" not in capsys.readouterr().err
        assert [Path(f"/proc/{pid}").stat().st_uid for pid in pids[1:]] == [runs_as, runs_as] != [0, 0]
        schedule = list(Path(own.services.state_dir).glob("*/celerybeat-schedule*"))  # dbm may add a suffix
        assert schedule and all(path.stat().st_uid == runs_as for path in schedule)
    launcher.down(own)
    assert not any(_alive(pid) for pid in pids)


@services
def test_crash_during_start_reports_log(own):
    # A heap too small for the JVM: it dies at once; the error shows its output, and nothing stays up.
    own.services.opensearch_heap = "1k"
    with pytest.raises(ServiceError, match="OpenSearch exited during start-up") as info:
        launcher.up(own, ("opensearch",))
    assert "last lines of" in str(info.value) and "heap" in str(info.value).lower()
    assert "exited: opensearch (exit status 1; not expected)" in str(info.value)  # supervisord's record of the run
    assert not Supervisor(Path(own.services.state_dir)).running()


@services
def test_crash_after_launch_reports_log(own, monkeypatch):
    # The JVM starts, then the node cannot read its opensearch.yml and exits: its own words name the line. (A
    # config it reads but refuses, such as an unknown setting, is refused only once every plugin has loaded: the
    # same crash for the launcher, at the cost of a whole start.)
    write_config = opensearch.write_config

    def broken_config(*args):
        write_config(*args)
        paths = args[1]
        with (paths["config"] / "opensearch.yml").open("a") as handle:
            handle.write("evident.broken: [unclosed\n")

    monkeypatch.setattr(opensearch, "write_config", broken_config)
    with pytest.raises(ServiceError, match="exited during start-up") as info:
        launcher.up(own, ("opensearch",))
    assert "evident.broken: [unclosed" in str(info.value)
    assert not opensearch.probe(own.services.opensearch_port)[0] == "opensearch"


# ------------------------------------------------------- errors, no servers


def test_busy_port_that_is_not_the_service_is_an_error(own, state):
    server = _serve(_NotAService)
    port = server.server_address[1]
    try:
        for name, setting in (("OpenSearch", "opensearch_port"), ("Redis", "redis_port"), ("the API", "api_port"),
                              ("Flower", "flower_port")):
            setattr(own.services, setting, port)
            with pytest.raises(ServiceError, match=f"port {port} .* not {name}"):
                launcher.up(own)
            setattr(own.services, setting, free_port())
    finally:
        server.shutdown()
    assert not (state / "opensearch").exists() and not (state / "supervisord.conf").exists()


def test_missing_jdk_is_a_clear_error(own, state, monkeypatch, tmp_path):
    monkeypatch.setenv("EVIDENT_JAVA_HOME", str(tmp_path))
    with pytest.raises(ServiceError, match="EVIDENT_JAVA_HOME=.* is not a JDK"):
        launcher.up(own, ("opensearch",))
    monkeypatch.delenv("EVIDENT_JAVA_HOME")
    with pytest.raises(ServiceError, match="no JDK for OpenSearch found .* Java 21"):
        opensearch.find_java_home(jvm_root=tmp_path)
    assert not (state / "supervisord.conf").exists()


def test_failed_download_is_a_clear_error(own, state, monkeypatch):
    monkeypatch.setenv("EVIDENT_MAVEN_REPOSITORY", "http://127.0.0.1:9/unreachable")
    own.services.cache_dir = str(state / "cache")
    with pytest.raises(ServiceError, match="download failed: http://127.0.0.1:9/unreachable/org/opensearch/"):
        launcher.up(own, ("opensearch",))
    assert not (state / "supervisord.conf").exists()


def test_worker_must_use_the_stacks_redis(own):
    own.redis.url = "redis://127.0.0.1:6379/0"  # not the stack's port: it would drain another queue
    with pytest.raises(ServiceError, match="EVIDENT_REDIS_URL"):
        launcher.up(own, ("worker",))


def test_missing_redis_binary_is_a_clear_error(monkeypatch, state):
    monkeypatch.setattr(launcher.redis.shutil, "which", lambda name: None)
    monkeypatch.setattr(launcher.redis.os, "access", lambda *a, **k: False)
    with pytest.raises(ServiceError, match="apt-get install -y redis-server"):
        launcher.redis.prepare(state, port=free_port())


def test_version_comes_from_dot_env(tmp_path):
    line = next(x for x in opensearch.ENV_FILE.read_text().splitlines() if x.startswith("OPENSEARCH_VERSION="))
    assert opensearch.opensearch_version() == line.split("=", 1)[1].strip()
    (tmp_path / ".env").write_text("OTHER=1\n")
    with pytest.raises(ServiceError, match="no OPENSEARCH_VERSION"):
        opensearch.opensearch_version(tmp_path / ".env")


def test_program_config_escapes_for_supervisord(tmp_path):
    program = Program("x", ["/bin/echo", "50%", "a b"], directory=tmp_path, environment={"A": "1%"})
    text = render_program(program, tmp_path)
    assert "command=/bin/echo 50%% 'a b'" in text and 'environment=A="1%%"' in text
    with pytest.raises(ServiceError, match="quote"):
        render_program(Program("x", ["true"], directory=tmp_path, environment={"A": 'say "hi"'}), tmp_path)


def test_download_verifies_checksums_and_caches(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    folder = repo / "org" / "example" / "thing" / "1.0"
    folder.mkdir(parents=True)
    payload = os.urandom(300_000)
    (folder / "thing-1.0.zip").write_bytes(payload)
    (folder / "thing-1.0.zip.sha1").write_text(hashlib.sha1(payload).hexdigest())
    (folder / "thing-1.0.jar").write_bytes(payload)  # no checksum at all
    bad = repo / "org" / "example" / "bad" / "1.0"
    bad.mkdir(parents=True)
    (bad / "bad-1.0.zip").write_bytes(payload)
    (bad / "bad-1.0.zip.sha1").write_text("0" * 40 + "  bad-1.0.zip\n")
    server = _serve(_Quiet, repo)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("EVIDENT_MAVEN_REPOSITORY", base)
    cache = tmp_path / "cache"
    fetch = maven.download_artifact
    try:
        path = fetch("org.example", "thing", "1.0", "zip", cache, progress=False)
        assert path.read_bytes() == payload
        with pytest.raises(ServiceError, match=f"{base}/org/example/bad/1.0/bad-1.0.zip"):
            fetch("org.example", "bad", "1.0", "zip", cache, progress=False)
        assert not (cache / "bad-1.0.zip").exists()
        with pytest.raises(ServiceError, match="HTTP 404"):
            fetch("org.example", "missing", "1.0", "zip", cache, progress=False)
        with pytest.raises(ServiceError, match="refusing an unverified download"):
            fetch("org.example", "thing", "1.0", "jar", cache, progress=False)
        jar = fetch("org.example", "thing", "1.0", "jar", cache, progress=False,  # a pin is enough
                    pinned_sha256=hashlib.sha256(payload).hexdigest())
        assert jar.read_bytes() == payload
        with pytest.raises(ServiceError, match="checksum mismatch .* sha256"):
            fetch("org.example", "thing", "1.0", "zip", tmp_path / "other", progress=False, pinned_sha256="0" * 64)
    finally:
        server.shutdown()
    # Cached and verified: no repository needed any more.
    monkeypatch.setenv("EVIDENT_MAVEN_REPOSITORY", "http://127.0.0.1:9/unreachable")
    assert fetch("org.example", "thing", "1.0", "zip", cache, progress=False) == path
    with pytest.raises(ServiceError, match="127.0.0.1:9/unreachable/org/example/other"):
        fetch("org.example", "other", "1.0", "zip", cache, progress=False)


def test_java_home_detection(monkeypatch, tmp_path):
    monkeypatch.delenv("EVIDENT_JAVA_HOME", raising=False)
    home = opensearch.find_java_home()
    assert (home / "bin" / "java").is_file()
    assert opensearch.java_major(home) >= opensearch.JAVA_MIN
