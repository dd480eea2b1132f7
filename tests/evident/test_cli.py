"""The command line as users and scripts call it: exit codes, --help, parse without services; ingest,
search and reindex against the real services."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import SAMPLES

CTRL_C_PAGES = 20  # wiki pages ingested and left while the worker takes none; Ctrl-C comes at once
# The CLI with Python's own SIGINT handler installed, whatever the disposition it inherits.
INTERRUPTIBLE_CLI = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                     "from evident.cli import main; sys.exit(main(sys.argv[1:]))")
REQUIRED = {"id", "kind", "url", "title", "heading_path", "text", "context", "lang", "acl"}


def evident(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evident.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


@pytest.fixture
def evident_here(capsys, monkeypatch):
    """``evident`` run inside the test process, so the language models stay loaded from test to test."""
    from evident.cli import main

    def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        code = main(list(args))
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, captured.out, captured.err)

    return run


def test_parse_prints_evidence_without_any_service(evident_here):
    # Point every service at a closed port: parse must not need them.
    result = evident_here("parse", str(SAMPLES), "--json",
                          env={"EVIDENT_OPENSEARCH_URL": "http://127.0.0.1:9",
                               "EVIDENT_REDIS_URL": "redis://127.0.0.1:9/0"})
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(REQUIRED <= set(r) for r in rows)
    assert isinstance(rows[0]["heading_path"], list) and isinstance(rows[0]["acl"], list)
    assert any(r["acl"] == ["hr-team"] for r in rows)
    assert any(r["url"].endswith(".pdf#page=2") for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)


def test_parse_reports_a_bad_file_and_goes_on(evident_here, tmp_path):
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    (tmp_path / "good.html").write_text("<html><body><main><h1>Hi</h1><p>Hello there.</p></main></body></html>",
                                        encoding="utf-8")
    (tmp_path / "notes.docx").write_bytes(b"PK")
    result = evident_here("parse", str(tmp_path), "--json")
    assert result.returncode == 1
    assert "bad.json" in result.stderr
    assert "1 files are not JSON, HTML, PDF or CSV and were left out (notes.docx)" in result.stderr
    assert any(json.loads(line)["text"] == "Hello there." for line in result.stdout.splitlines())


def test_missing_path_is_an_error():
    result = evident("parse", "/no/such/folder")
    assert result.returncode == 1 and "/no/such/folder" in result.stderr


def test_every_command_has_help(capsys):
    """In the test process, not a new one importing the CLI again per command; ``python -m evident.cli`` itself
    is run by the test above."""
    from evident.cli import main

    for command in ("services", "init", "reindex", "parse", "ingest", "worker", "serve", "search", "eval", "demo",
                    "jobs"):
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0 and "usage: evident" in capsys.readouterr().out, command


def index_env(settings) -> dict:
    return {"EVIDENT_OPENSEARCH_INDEX_ALIAS": settings.opensearch.index_alias, "EVIDENT_REDIS_URL": settings.redis.url}


def test_search_prints_json_hits(sample_corpus, settings, evident_here):
    result = evident_here("search", "TS-E4471", "--json", "-k", "3", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["hits"][0]["url"].endswith("Runbook%3A+Telemetry+Gateway+Alarms") and len(data["hits"]) <= 3


def test_search_lists_the_matching_pages_newest_first_when_asked(sample_corpus, settings, evident_here):
    result = evident_here("search", "TideSense buoy firmware", "--sort", "updated", "--json", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    matching = [hit for hit in json.loads(result.stdout)["hits"] if hit["verdict"] != "none"]
    dates = [hit["updated"][:19] for hit in matching]
    assert len(set(dates)) >= 3 and dates == sorted(dates, reverse=True)  # the samples' runbook is first by relevance


def test_ingest_follows_the_job_and_prunes_files_gone_from_the_folder(worker, settings, tmp_path, evident_here):
    import shutil

    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"base": "https://files.example.org/manuals/"}', encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "a.pdf")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "b.pdf")
    first = evident_here("ingest", str(folder), env=index_env(settings))
    assert first.returncode == 0, first.stderr
    assert "2 indexed, 0 unchanged, 0 failed" in first.stderr
    (folder / "b.pdf").unlink()
    second = evident_here("ingest", "--prune", str(folder), env=index_env(settings))
    assert second.returncode == 0, second.stderr
    assert "removed manuals/b.pdf: gone from its folder" in second.stderr
    assert "0 indexed, 1 unchanged, 0 failed" in second.stderr
    (folder / "a.pdf").unlink()
    emptied = evident_here("ingest", "--prune", str(folder), env=index_env(settings))
    assert emptied.returncode == 0, emptied.stderr
    assert "removed manuals/a.pdf" in emptied.stderr and "pruned 1 files" in emptied.stderr


def test_readme_documents_every_command():
    import re

    from evident.cli import build_parser
    from core.settings import PROJECT_ROOT

    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`evident (\w+)", readme))
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert documented == set(subparsers.choices)


def test_reindex_swaps_the_alias_and_keeps_every_evidence(sample_corpus, stores, settings, evident_here):
    alias = settings.opensearch.index_alias
    before_index = sorted(stores.indices.get_alias(name=alias))
    before_count = stores.count(index=alias)["count"]
    result = evident_here("reindex", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    after_index = sorted(stores.indices.get_alias(name=alias))
    assert after_index == [report["to"]] and after_index != before_index
    assert not stores.indices.exists(index=before_index[0])
    assert stores.count(index=alias)["count"] == before_count == report["documents"]


def test_ctrl_c_leaves_the_job_running_and_says_how_to_follow_or_cancel_it(worker, jobs, stores, settings, tmp_path):
    import shutil
    import signal

    from core.jobs import INGEST_QUEUE
    from tests.conftest import HARBORLANE
    from workers.submit import prune, wait_for_job

    folder = tmp_path / "wiki"
    folder.mkdir()
    for page in sorted((HARBORLANE / "pages").glob("*.json"))[:CTRL_C_PAGES]:
        shutil.copy(page, folder / page.name)
    # The worker takes no task until the job is cancelled (it may hold one it took already): a worker that
    # ingests faster than `evident jobs cancel` starts would otherwise leave nothing to cancel.
    worker.control.cancel_consumer(INGEST_QUEUE, reply=True)
    job_id = None
    try:
        # Ctrl-C as a terminal sends it: the CLI's own SIGINT handling, even where the tests run with SIGINT
        # ignored (a background job of a non-interactive shell passes that on to every child).
        following = subprocess.Popen([sys.executable, "-c", INTERRUPTIBLE_CLI, "ingest", str(folder)], text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, **index_env(settings)})
        queued = next(line for line in following.stderr if " files queued" in line)
        job_id = queued.split()[1].rstrip(":")
        following.send_signal(signal.SIGINT)
        _out, err = following.communicate(timeout=60)
        assert following.returncode == 130, err
        assert (f"job {job_id} goes on in the background: follow it with `evident jobs show {job_id}` (or GET "
                f"http://127.0.0.1:8800/api/ingest/jobs/{job_id} as an admin), cancel it with "
                f"`evident jobs cancel {job_id}`") in err

        cancel = evident("jobs", "cancel", job_id, env=index_env(settings))
        assert cancel.returncode == 0, cancel.stderr
        assert cancel.stdout.startswith(job_id) and ("cancelling" in cancel.stdout or "cancelled" in cancel.stdout)
        worker.control.add_consumer(INGEST_QUEUE, reply=True)
        status = wait_for_job(jobs, job_id, timeout=600)
        assert status.state == "cancelled" and status.cancelled >= 1, status
        assert status.done + status.skipped + status.failed + status.cancelled == status.total == CTRL_C_PAGES
        shown = evident("jobs", "show", job_id, env=index_env(settings))
        assert shown.returncode == 0 and f"{job_id}  cancelled" in shown.stdout
        listed = evident("jobs", "list", "--json", env=index_env(settings))
        assert any(j["job_id"] == job_id and j["state"] == "cancelled" for j in json.loads(listed.stdout))
        unknown = evident("jobs", "show", "nope", env=index_env(settings))
        assert unknown.returncode == 1 and "no ingest job 'nope'" in unknown.stderr
    finally:
        if job_id:  # a check failed before the cancel: the job's files must not reach the session's index
            jobs.cancel(job_id)
        worker.control.add_consumer(INGEST_QUEUE, reply=True)  # already consuming, unless a check failed before
        if job_id:
            wait_for_job(jobs, job_id, timeout=600)
        prune(jobs, stores, settings, [str(folder)], [])


def test_opensearch_unreachable_or_refusing_is_one_line_naming_the_node_and_the_cause():
    """Nothing listens on port 9: ``init`` waits ``[opensearch] start_wait`` for a node just started (a second
    here), then says so in one line, without the URL's password."""
    from opensearchpy.exceptions import RequestError

    from evident.cli import opensearch_reason

    result = evident("init", env={"EVIDENT_OPENSEARCH_URL": "http://admin:s3cret@127.0.0.1:9",
                                  "EVIDENT_OPENSEARCH_MAX_RETRIES": "0", "EVIDENT_OPENSEARCH_START_WAIT": "1"})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("evident: OpenSearch at http://admin:***@127.0.0.1:9: ")
    assert "s3cret" not in result.stderr
    refused = RequestError(400, "illegal_argument_exception", {"error": {"reason": "index template [b] overlaps [a]"}})
    assert opensearch_reason(refused) == "index template [b] overlaps [a]"
