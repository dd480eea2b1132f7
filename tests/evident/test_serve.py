"""``evident serve`` under gunicorn (a worker process per two cores, models loaded in each) and ``evident search
--api`` asking it: the same answer as searching in process, without loading a model in the shell. What gunicorn
itself refuses (a header or a request line over its limits, malformed HTTP) is answered with JSON too."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from evident.bench import free_port
from evident.server import cores
from tests.evident.test_cli import evident_here  # noqa: F401 - the in-process command fixture

START_TIMEOUT = 300  # seconds: each gunicorn worker loads the embedding model on 2 busy cores
HEALTH_TIMEOUT = 5  # seconds one health check may take: a loaded worker answers in milliseconds
POLL_SECONDS = 0.5  # between health checks while the workers load
QUERY = "TS-E4471"  # the rare error code of the sample runbook
RUNBOOK_URL_END = "Runbook%3A+Telemetry+Gateway+Alarms"
LARGE_ADMIN_TOKEN = "t" * 6000  # a bearer token as large as a single sign-on's for a user in many groups
LARGE_GROUPS = ",".join(f"team-{i:04d}" for i in range(700))  # 7 KB of groups in one identity header
OVERSIZED_HEADER = "a" * 17_000  # past the 16 KiB a header field may take
OVERSIZED_QUERY = "a" * 9_000  # past the 8190 bytes a request line may take
ANSWER_TIMEOUT = 30  # seconds a raw exchange may take: the refusals come at once


def evident(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evident.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=START_TIMEOUT)


@pytest.fixture(scope="module")
def served(sample_corpus, settings, tmp_path_factory):
    port = free_port()
    env = {"EVIDENT_OPENSEARCH_INDEX_ALIAS": settings.opensearch.index_alias, "EVIDENT_REDIS_URL": settings.redis.url,
           "EVIDENT_OPENSEARCH_SEARCHLOG_INDEX": settings.opensearch.searchlog_index,
           "EVIDENT_SERVICES_API_PORT": str(port), "EVIDENT_AUTH_ADMIN_TOKEN": LARGE_ADMIN_TOKEN}
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "evident.cli", "serve", "--host", "127.0.0.1"],
                                  env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/api/health", timeout=HEALTH_TIMEOUT)
                break
            except requests.RequestException:  # the master binds at once; its workers answer once loaded
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(POLL_SECONDS)
        yield server, env, log
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_serve_runs_a_worker_process_per_two_cores(served):
    server, _env, log = served
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    assert len(children) == max(1, cores() // 2), log.read_text()


def test_search_through_the_api_answers_like_the_search_here(served, evident_here):
    _server, env, _log = served
    through_api = evident("search", QUERY, "--api", "--json", "-k", "3", env=env)
    assert through_api.returncode == 0, through_api.stderr
    answer = json.loads(through_api.stdout)
    assert "search_id" in answer  # only the API logs a search and names it
    here = json.loads(evident_here("search", QUERY, "--json", "-k", "3", env=env).stdout)
    assert [h["url"] for h in answer["hits"]] == [h["url"] for h in here["hits"]]
    assert answer["hits"][0]["url"].endswith(RUNBOOK_URL_END)


def test_search_through_an_api_that_is_not_there_says_so(settings):
    result = evident("search", QUERY, "--api", env={"EVIDENT_SERVICES_API_PORT": str(free_port())})
    assert result.returncode == 1 and "no answer from the API" in result.stderr


def exchange(port: int, request: bytes) -> tuple[int, str, bytes]:
    """One raw HTTP exchange (the request sent as given, even when it is no valid HTTP): status, head, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_TIMEOUT) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), head.decode("latin-1"), body


def get(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: localhost", "Connection: close", *headers, "", ""]).encode()


def port_of(env: dict) -> int:
    return int(env["EVIDENT_SERVICES_API_PORT"])


def test_a_large_token_and_a_large_identity_header_are_read_whole(served):
    _server, env, log = served
    status, _head, body = exchange(port_of(env), get("/api/ingest/jobs", f"Authorization: Bearer {LARGE_ADMIN_TOKEN}"))
    assert status == 200 and isinstance(json.loads(body), list), log.read_text()  # the admin token, recognised
    status, _head, body = exchange(port_of(env), get(f"/api/search?q={QUERY}", f"X-Evident-Groups: {LARGE_GROUPS}"))
    assert status == 200 and any("identity headers are ignored" in w for w in json.loads(body)["warnings"])


@pytest.mark.parametrize("request_bytes, status, named", [
    (get("/api/search?q=x", f"X-Padding: {OVERSIZED_HEADER}"), 431, "headers: over the limits"),
    (get("/api/search?q=x", *[f"X-Header-{i}: x" for i in range(150)]), 431, "headers: over the limits"),
    (get(f"/api/search?q={OVERSIZED_QUERY}"), 414, "request line: over 8190 bytes"),
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "request: not valid HTTP/1.1"),
    (get("/api/search?q=x", "Broken header line"), 400, "request: not valid HTTP/1.1"),
])
def test_what_the_server_cannot_read_is_answered_with_json(served, request_bytes, status, named):
    _server, env, log = served
    answered, head, body = exchange(port_of(env), request_bytes)
    assert answered == status and "Content-Type: application/json" in head, head
    assert json.loads(body)["error"].startswith(named)
    assert "Invalid request from ip=127.0.0.1" in log.read_text() and "Traceback" not in log.read_text()


def test_a_form_encoded_search_is_refused_with_json_and_no_traceback(served):
    _server, env, log = served
    answer = requests.post(f"http://127.0.0.1:{port_of(env)}/api/search", data={"q": "x"}, timeout=ANSWER_TIMEOUT)
    assert answer.status_code == 415 and answer.json()["errors"][0]["parameter"] == "body"
    assert "Traceback" not in log.read_text()
