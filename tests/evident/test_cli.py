"""The command line as users and scripts call it: exit codes, --help, parse without services."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import SAMPLES

REQUIRED = {"id", "kind", "url", "title", "heading_path", "text", "context", "lang", "acl"}


def evident(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evident.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_parse_prints_evidence_without_any_service():
    # Point every service at a closed port: parse must not need them.
    result = evident("parse", str(SAMPLES), "--json",
                     env={"EVIDENT_OPENSEARCH_URL": "http://127.0.0.1:9", "EVIDENT_REDIS_URL": "redis://127.0.0.1:9/0"})
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(REQUIRED <= set(r) for r in rows)
    assert isinstance(rows[0]["heading_path"], list) and isinstance(rows[0]["acl"], list)
    assert any(r["acl"] == ["hr-team"] for r in rows)
    assert any(r["url"].endswith(".pdf#page=2") for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)


def test_parse_reports_a_bad_file_and_goes_on(tmp_path):
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    (tmp_path / "good.html").write_text("<html><body><main><h1>Hi</h1><p>Hello there.</p></main></body></html>",
                                        encoding="utf-8")
    result = evident("parse", str(tmp_path), "--json")
    assert result.returncode == 1
    assert "bad.json" in result.stderr
    assert any(json.loads(line)["text"] == "Hello there." for line in result.stdout.splitlines())


def test_missing_path_is_an_error():
    result = evident("parse", "/no/such/folder")
    assert result.returncode == 1 and "/no/such/folder" in result.stderr


def test_every_command_has_help():
    for command in ("services", "init", "parse", "ingest", "worker", "serve", "search", "eval", "demo"):
        result = evident(command, "--help")
        assert result.returncode == 0 and "usage: evident" in result.stdout, command
