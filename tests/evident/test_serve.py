"""``evident serve`` under gunicorn (a worker process per core, models loaded in each) and ``evident search
--api`` asking it: the same answer as searching in process, without loading a model in the shell."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from evident.bench import free_port
from evident.server import cores

START_TIMEOUT = 300  # seconds: each gunicorn worker loads the embedding model on 2 busy cores
HEALTH_TIMEOUT = 5  # seconds one health check may take: a loaded worker answers in milliseconds
POLL_SECONDS = 0.5  # between health checks while the workers load
QUERY = "TS-E4471"  # the rare error code of the sample runbook
RUNBOOK_URL_END = "Runbook%3A+Telemetry+Gateway+Alarms"


def evident(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evident.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=START_TIMEOUT)


@pytest.fixture(scope="module")
def served(sample_corpus, settings, tmp_path_factory):
    port = free_port()
    env = {"EVIDENT_OPENSEARCH_INDEX_ALIAS": settings.opensearch.index_alias, "EVIDENT_REDIS_URL": settings.redis.url,
           "EVIDENT_OPENSEARCH_SEARCHLOG_INDEX": settings.opensearch.searchlog_index,
           "EVIDENT_SERVICES_API_PORT": str(port)}
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


def test_serve_runs_a_worker_process_per_core(served):
    server, _env, log = served
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    assert len(children) == cores(), log.read_text()


def test_search_through_the_api_answers_like_the_search_here(served):
    _server, env, _log = served
    through_api = evident("search", QUERY, "--api", "--json", "-k", "3", env=env)
    assert through_api.returncode == 0, through_api.stderr
    answer = json.loads(through_api.stdout)
    assert "search_id" in answer  # only the API logs a search and names it
    here = json.loads(evident("search", QUERY, "--json", "-k", "3", env=env).stdout)
    assert [h["url"] for h in answer["hits"]] == [h["url"] for h in here["hits"]]
    assert answer["hits"][0]["url"].endswith(RUNBOOK_URL_END)


def test_search_through_an_api_that_is_not_there_says_so(settings):
    result = evident("search", QUERY, "--api", env={"EVIDENT_SERVICES_API_PORT": str(free_port())})
    assert result.returncode == 1 and "no answer from the API" in result.stderr
