"""Real local services: OpenSearch (k-NN lucene, neural-search hybrid) and Redis.

The node and Redis are the session's (tests/conftest.py ``stores``: started through
evident.stack.opensearch, or reused when already answering on the configured ports).
"""
from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from evident.stack import opensearch as services



# ------------------------------------------------------------------ helpers


def _request(base: str, method: str, path: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"{method} {path} -> HTTP {exc.code}: {exc.read().decode(errors='replace')}")


def _redis_command(port: int, *args: str) -> bytes:
    payload = f"*{len(args)}\r\n".encode()
    for arg in args:
        raw = arg.encode()
        payload += b"$%d\r\n%s\r\n" % (len(raw), raw)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(payload)
        return sock.recv(4096)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def opensearch(stores, settings) -> str:
    status = services.opensearch_status(port=settings.services.opensearch_port)
    assert status.running and status.health in ("green", "yellow")
    return status.url


@pytest.fixture
def index(opensearch):
    name = f"evident-test-services-{uuid.uuid4().hex[:8]}"
    _request(opensearch, "PUT", f"/{name}", {
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
        _request(opensearch, "PUT", f"/{name}/_doc/{doc_id}", doc)
    _request(opensearch, "POST", f"/{name}/_refresh")
    yield name
    _request(opensearch, "DELETE", f"/{name}")


@pytest.fixture(scope="module")
def redis_port(stores, settings) -> int:
    return settings.services.redis_port


# -------------------------------------------------------------- OpenSearch


def test_knn_lucene_returns_nearest_doc(opensearch, index):
    result = _request(opensearch, "POST", f"/{index}/_search", {
        "size": 3, "query": {"knn": {"vector": {"vector": [0.1, 0.05, 0.9, 0.0], "k": 3}}}})
    ids = [hit["_id"] for hit in result["hits"]["hits"]]
    assert ids[0] == "south"
    assert set(ids) == {"north", "east", "south"}


def test_plugins_and_modules_present(opensearch):
    plugins = _request(opensearch, "GET", "/_nodes/plugins")
    node = next(iter(plugins["nodes"].values()))
    names = {p["name"] for p in node["plugins"]}
    modules = {m["name"] for m in node["modules"]}
    assert {"opensearch-knn", "opensearch-neural-search"} <= names
    assert set(services.REQUIRED_MODULES) <= modules


def test_hybrid_query_with_rrf_pipeline(opensearch, index):
    pipeline = f"evident-test-rrf-{uuid.uuid4().hex[:6]}"
    _request(opensearch, "PUT", f"/_search/pipeline/{pipeline}", {
        "phase_results_processors": [
            {"score-ranker-processor": {"combination": {"technique": "rrf", "rank_constant": 60}}}]})
    try:
        result = _request(opensearch, "POST", f"/{index}/_search?search_pipeline={pipeline}", {
            "size": 3,
            "query": {"hybrid": {"queries": [
                {"match": {"text": "run south"}},  # english stemmer: running, runs -> run
                {"knn": {"vector": {"vector": [0.0, 0.1, 1.0, 0.0], "k": 3}}},
            ]}},
        })
    finally:
        _request(opensearch, "DELETE", f"/_search/pipeline/{pipeline}")
    hits = result["hits"]["hits"]
    # "south" is first in both lists: RRF score 2/(60+1); nobody can score higher.
    assert hits[0]["_id"] == "south"
    assert hits[0]["_score"] == pytest.approx(2 / 61, rel=1e-3)
    assert all(hit["_score"] <= 2 / 61 + 1e-6 for hit in hits)


def test_hybrid_query_with_normalization_pipeline(opensearch, index):
    pipeline = f"evident-test-norm-{uuid.uuid4().hex[:6]}"
    _request(opensearch, "PUT", f"/_search/pipeline/{pipeline}", {
        "phase_results_processors": [{"normalization-processor": {
            "normalization": {"technique": "min_max"},
            "combination": {"technique": "arithmetic_mean", "parameters": {"weights": [0.3, 0.7]}},
        }}]})
    try:
        result = _request(opensearch, "POST", f"/{index}/_search?search_pipeline={pipeline}", {
            "size": 3,
            "query": {"hybrid": {"queries": [
                {"match": {"text": "cat"}},
                {"knn": {"vector": {"vector": [0.9, 0.2, 0.0, 0.0], "k": 3}}},
            ]}},
        })
    finally:
        _request(opensearch, "DELETE", f"/_search/pipeline/{pipeline}")
    hits = result["hits"]["hits"]
    # Scores are normalized into [0, 1]; the vector side (weight 0.7) favours "north".
    assert hits[0]["_id"] == "north"
    assert all(0.0 <= hit["_score"] <= 1.0 + 1e-6 for hit in hits)


def test_analysis_common_painless_and_ingest_modules(opensearch, index):
    tokens = _request(opensearch, "POST", "/_analyze", {
        "char_filter": ["html_strip"], "tokenizer": "standard",
        "filter": ["lowercase", {"type": "stemmer", "language": "light_german"}],
        "text": "<p>Die <b>Häuser</b></p>"})
    assert [t["token"] for t in tokens["tokens"]] == ["die", "haus"]
    scored = _request(opensearch, "POST", f"/{index}/_search", {
        "query": {"script_score": {"query": {"match_all": {}},
                                   "script": {"source": "params.base + 1", "params": {"base": 41}}}}})
    assert scored["hits"]["hits"][0]["_score"] == 42.0
    simulated = _request(opensearch, "POST", "/_ingest/pipeline/_simulate", {
        "pipeline": {"processors": [{"lowercase": {"field": "t"}}, {"trim": {"field": "t"}}]},
        "docs": [{"_source": {"t": "  HeLLo "}}]})
    assert simulated["docs"][0]["doc"]["_source"]["t"] == "hello"


def test_start_opensearch_is_idempotent(opensearch, settings):
    port = settings.services.opensearch_port
    before = services.opensearch_status(port=port)
    status = services.start_opensearch(port=port)
    assert status.running and status.version
    assert services.opensearch_status(port=port).pid == before.pid  # reused, not restarted


def test_crash_during_start_reports_log(opensearch):
    # A heap too small for the JVM: the node dies at once and the error shows its output.
    state = Path(tempfile.mkdtemp(prefix="evident-test-crash-"))
    state.chmod(0o755)  # the service user must be able to enter it when we run as root
    try:
        with pytest.raises(services.ServiceError, match="OpenSearch") as info:
            services.start_opensearch(state_dir=state, port=_free_port(), heap="1k", timeout=120)
        assert "last" in str(info.value) and "lines of" in str(info.value)
    finally:
        shutil.rmtree(state, ignore_errors=True)


def test_crash_after_launch_reports_log(opensearch, monkeypatch):
    # The JVM starts, then the node refuses an unknown setting and exits: caught via /proc.
    write_config = services._write_config

    def broken_config(home, paths, port, heap):
        write_config(home, paths, port, heap)
        with (paths["config"] / "opensearch.yml").open("a") as handle:
            handle.write("evident.no.such.setting: 1\n")

    monkeypatch.setattr(services, "_write_config", broken_config)
    state = Path(tempfile.mkdtemp(prefix="evident-test-crash-"))
    state.chmod(0o755)
    try:
        with pytest.raises(services.ServiceError, match="exited during start-up") as info:
            services.start_opensearch(state_dir=state, port=_free_port(), timeout=300)
        assert "evident.no.such.setting" in str(info.value)
    finally:
        shutil.rmtree(state, ignore_errors=True)


# ---------------------------------------------------------------- Redis


def test_redis_answers(redis_port):
    assert _redis_command(redis_port, "PING").startswith(b"+PONG")
    key = f"evident-test-{uuid.uuid4().hex[:8]}"
    assert _redis_command(redis_port, "SET", key, "v", "EX", "60").startswith(b"+OK")
    assert _redis_command(redis_port, "GET", key) == b"$1\r\nv\r\n"
    again = services.start_redis(port=redis_port)  # idempotent: reuses the running one
    assert again.running and again.version
    assert services.redis_status(port=redis_port).running


# ------------------------------------------------------- errors, no servers


def test_busy_port_that_is_not_the_service_is_an_error(tmp_path):
    server = _serve(_NotAService)
    port = server.server_address[1]
    try:
        with pytest.raises(services.ServiceError, match="not OpenSearch"):
            services.start_opensearch(state_dir=tmp_path, cache_dir=tmp_path, port=port)
        with pytest.raises(services.ServiceError, match="not Redis"):
            services.start_redis(state_dir=tmp_path, port=port)
        assert not (tmp_path / "opensearch").exists()  # nothing downloaded or written
    finally:
        server.shutdown()


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
    try:
        path = services.download_artifact("org.example", "thing", "1.0", "zip", cache, progress=False)
        assert path.read_bytes() == payload
        with pytest.raises(services.ServiceError, match=f"{base}/org/example/bad/1.0/bad-1.0.zip"):
            services.download_artifact("org.example", "bad", "1.0", "zip", cache, progress=False)
        assert not (cache / "bad-1.0.zip").exists()
        with pytest.raises(services.ServiceError, match="HTTP 404"):
            services.download_artifact("org.example", "missing", "1.0", "zip", cache, progress=False)
        with pytest.raises(services.ServiceError, match="refusing an unverified download"):
            services.download_artifact("org.example", "thing", "1.0", "jar", cache, progress=False)
    finally:
        server.shutdown()
    # Cached and verified: no repository needed any more.
    monkeypatch.setenv("EVIDENT_MAVEN_REPOSITORY", "http://127.0.0.1:9/unreachable")
    assert services.download_artifact("org.example", "thing", "1.0", "zip", cache, progress=False) == path
    with pytest.raises(services.ServiceError, match="127.0.0.1:9/unreachable/org/example/other"):
        services.download_artifact("org.example", "other", "1.0", "zip", cache, progress=False)


def test_java_home_detection(monkeypatch, tmp_path):
    monkeypatch.delenv("EVIDENT_JAVA_HOME", raising=False)
    home = services.find_java_home(services.OPENSEARCH_VERSION)
    assert (home / "bin" / "java").is_file()
    assert services._java_major(home) >= 21
    monkeypatch.setenv("EVIDENT_JAVA_HOME", str(tmp_path))
    with pytest.raises(services.ServiceError, match="EVIDENT_JAVA_HOME"):
        services.find_java_home(services.OPENSEARCH_VERSION)


def test_missing_redis_binary_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(services.shutil, "which", lambda name: None)
    monkeypatch.setattr(services.os, "access", lambda *a, **k: False)
    with pytest.raises(services.ServiceError, match="apt-get install -y redis-server"):
        services.start_redis(state_dir=tmp_path, port=_free_port())
