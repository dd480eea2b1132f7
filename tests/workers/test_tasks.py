"""The ingest task through the real Redis broker, the real Celery worker and the real OpenSearch; the optional
LLM summary view against an OpenAI-compatible endpoint served on loopback by the test (no LLM runs on this
machine)."""
from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from tests.conftest import SAMPLES, TEST_ALIAS
from workers.folder import CorpusFile, load

RUNBOOK = SAMPLES / "wiki" / "pages" / "4456482.json"
FILES_BASE = "https://files.example.org/"
SECOND_ALIAS = f"second-{TEST_ALIAS}"  # not under TEST_ALIAS-*: index templates may not overlap


def doc_id_ending(evidence_of, ending: str) -> str:
    """The id of the one indexed document whose id ends with ``ending`` (a page id, a file's name in its
    folder): ids also name their source, whose path is the test's temporary folder."""
    ids = {e["doc_id"] for e in evidence_of() if e["doc_id"].endswith(ending)}
    assert len(ids) == 1, ids
    return ids.pop()


def test_sample_corpus_ingests_into_typed_evidence(sample_corpus, evidence_of):
    assert sample_corpus.failed == 0, sample_corpus.errors
    assert sample_corpus.done == sample_corpus.total >= 7
    evidence = evidence_of()
    kinds = {e["kind"] for e in evidence}
    assert {"passage", "list", "table", "table_row", "pdf_page"} <= kinds
    doc_ids = {e["doc_id"] for e in evidence}
    assert any(d.startswith("confluence:") for d in doc_ids)
    assert any(d.startswith("html:") for d in doc_ids)
    assert any(d.startswith("pdf:") for d in doc_ids)
    pdf_urls = {e["url"] for e in evidence if e["kind"] == "pdf_page"}
    assert "https://files.example.org/field-service-manual.pdf#page=2" in pdf_urls


def test_reingest_keeps_ids_and_count(sample_corpus, ingest, evidence_of):
    before = sorted(e["id"] for e in evidence_of())
    status = ingest(SAMPLES, force=True)
    assert status.failed == 0 and status.done == status.total
    after = sorted(e["id"] for e in evidence_of())
    assert after == before


def test_unchanged_files_are_skipped_when_ingest_runs_again(sample_corpus, ingest):
    status = ingest(SAMPLES)
    assert status.skipped == status.total and status.done == 0


def test_removed_section_disappears_after_reingest(ingest, evidence_of, sectioned_page, pruned_after, tmp_path):
    page = sectioned_page
    folder = tmp_path / "pages"
    folder.mkdir()
    pruned_after(folder)
    shutil.copy(SAMPLES / "wiki" / "users.json", tmp_path / "users.json")
    page["id"] = "99" + page["id"]
    page["_links"]["webui"] += "-copy"
    (folder / "copy.json").write_text(json.dumps(page), encoding="utf-8")
    assert ingest(folder).done == 1
    doc_id = doc_id_ending(evidence_of, f":{page['id']}")
    body = page["body"]["storage"]["value"]
    last_h2 = body.rindex("<h2>")
    heading = body[last_h2 + 4:body.index("</h2>", last_h2)]
    before = evidence_of(doc_id)
    assert any(heading in e["heading_path"] for e in before)

    page["body"]["storage"]["value"] = body[:last_h2]
    (folder / "copy.json").write_text(json.dumps(page), encoding="utf-8")
    assert ingest(folder).done == 1
    after = evidence_of(doc_id)
    assert after and not any(heading in e["heading_path"] for e in after)
    assert {e["id"] for e in after} < {e["id"] for e in before}


def test_bad_files_are_recorded_and_do_not_stop_the_rest(ingest, evidence_of, pruned_after, tmp_path):
    pruned_after(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"base": FILES_BASE}), encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", tmp_path / "good.pdf")
    (tmp_path / "broken.json").write_text("{ not json", encoding="utf-8")
    data = (SAMPLES / "pdf" / "field-service-manual.pdf").read_bytes()
    (tmp_path / "truncated.pdf").write_bytes(data[: len(data) // 3])
    status = ingest(tmp_path)
    assert status.total == 3 and status.done == 1 and status.failed == 2
    reasons = {e["file"].split("/")[-1]: e["reason"] for e in status.errors}
    assert set(reasons) == {"broken.json", "truncated.pdf"}
    assert "broken.json" in reasons["broken.json"]
    assert evidence_of(doc_id_ending(evidence_of, f"{tmp_path.name}/good.pdf"))


def test_a_file_without_a_url_is_refused_at_ingest_until_it_is_given_one(ingest, settings, evidence_of, pruned_after,
                                                                          sectioned_page, monkeypatch, tmp_path):
    folder = tmp_path / "no-urls"
    folder.mkdir()
    pruned_after(folder)
    shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", folder / "page.html")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    page = sectioned_page
    page["id"] = "97" + page["id"]
    del page["_links"]["base"]  # a bare webui link ("/spaces/...") opens nothing outside the wiki
    (folder / "page.json").write_text(json.dumps(page), encoding="utf-8")
    status = ingest(folder)
    assert (status.total, status.failed) == (3, 3)
    for error in status.errors:
        assert error["reason"].startswith(f"{error['file']}: ")
        assert "manifest.json" in error["reason"] and "EVIDENT_INGEST_FILES_BASE_URL" in error["reason"]
    endings = ("no-urls/page.html", "no-urls/manual.pdf", f":{page['id']}")
    assert not [e for e in evidence_of() if e["doc_id"].endswith(endings)]  # nothing of them is indexed

    monkeypatch.setattr(settings.ingest, "files_base_url", FILES_BASE)  # EVIDENT_INGEST_FILES_BASE_URL
    status = ingest(folder)
    assert (status.done, status.failed) == (3, 0), status.errors
    assert {e["url"] for e in evidence_of(doc_id_ending(evidence_of, "no-urls/page.html"))} == {f"{FILES_BASE}page.html"}
    assert {e["url"] for e in evidence_of(doc_id_ending(evidence_of, f":{page['id']}"))} == {f"{FILES_BASE}page.json"}


def test_the_same_folder_ingested_into_a_second_alias_on_the_same_redis_is_written_there(
        ingest, worker, settings, stores, evidence_of, pruned_after, tmp_path):
    from core.jobs import INGEST_QUEUE, JobStore
    from tests.workers.worker_process import WorkerProcess, isolated_settings
    from workers.folder import discover
    from workers.submit import prune, queue_files, wait_for_job

    folder = tmp_path / "pages"
    folder.mkdir()
    pruned_after(folder)
    shutil.copy(SAMPLES / "wiki" / "users.json", tmp_path / "users.json")
    shutil.copy(RUNBOOK, folder / "runbook.json")
    doc_id = f"confluence:{folder.name}:{RUNBOOK.stem}"
    assert ingest(folder).done == 1 and evidence_of(doc_id)

    second = isolated_settings(settings, stores, SECOND_ALIAS, None)  # the session's Redis database, as it is
    second_jobs = JobStore.from_settings(second)
    second_worker = WorkerProcess(second, {"EVIDENT_SERVICES_WORKER_CONCURRENCY": "1"})  # one file: one process
    assert worker.control.cancel_consumer(INGEST_QUEUE, reply=True), "the worker did not answer"
    try:  # the second alias's worker alone takes the queue
        second_worker.start()
        files, _, _ = discover([str(folder)])
        status = wait_for_job(second_jobs, queue_files(second_worker.app, second_jobs, files), TASK_WAIT)
        assert (status.done, status.skipped) == (1, 0), status
        stores.indices.refresh(index=SECOND_ALIAS)
        assert stores.count(index=SECOND_ALIAS, body={"query": {"term": {"doc_id": doc_id}}})["count"] > 0
        prune(second_jobs, stores, second, [str(folder)], [])
    finally:
        second_worker.stop()
        assert worker.control.add_consumer(INGEST_QUEUE, reply=True), "the worker did not answer"
        for index in stores.indices.get(index=f"{SECOND_ALIAS}-*", ignore_unavailable=True) or {}:
            stores.indices.delete(index=index)
    assert evidence_of(doc_id)  # the first alias keeps its evidence


# -- the LLM summary view --------------------------------------------------------------------------
def _context(settings, **llm):
    from workers.tasks import PipelineContext

    return PipelineContext(dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, **llm)))


def _summaries(evidence_of, doc_id):
    return [e["summary"] for e in evidence_of(doc_id) if e["summary"]]


def test_configured_endpoint_writes_the_summary_view(settings, evidence_of, endpoint):
    from workers.tasks import index_file

    url, requests, answer = endpoint
    answer["content"] = "Summary: LLM-WRITTEN SUMMARY"
    result = index_file(_context(settings, base_url=url, model="tiny", api_key="k"),
                        load(CorpusFile(RUNBOOK, "llm/4456482.json")), force=True)
    assert result["outcome"] == "done" and not result["warnings"]
    assert requests and requests[0]["path"] == "/v1/chat/completions" and requests[0]["auth"] == "Bearer k"
    assert requests[0]["body"]["model"] == "tiny"
    summaries = _summaries(evidence_of, result["doc_id"])
    assert summaries and set(summaries) == {"LLM-WRITTEN SUMMARY"}


def test_unreachable_endpoint_keeps_the_extractive_summary_and_says_so(settings, evidence_of):
    from workers.tasks import index_file

    result = index_file(_context(settings, base_url="http://127.0.0.1:9", model="tiny", timeout=5),
                        load(CorpusFile(RUNBOOK, "llm/4456482.json")), force=True)
    assert result["outcome"] == "done"
    assert len(result["warnings"]) == 1 and "kept the extractive summary" in result["warnings"][0]
    summaries = _summaries(evidence_of, result["doc_id"])
    assert summaries and "LLM-WRITTEN SUMMARY" not in summaries


def test_a_worker_writing_to_a_missing_alias_says_so_and_what_to_do(settings, stores, tmp_path):
    """A command that queued files for one index alias and a worker started with another: the file is
    refused with a sentence naming the worker's alias and the setting, not as a file that could not be read.
    (``stores``: it reads Redis and OpenSearch, so it starts them and is in the services tier.)"""
    from workers.tasks import EvidenceRefused, PipelineContext, index_file

    elsewhere = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch,
                                                                             index_alias="no-such-alias"))
    page = json.loads(RUNBOOK.read_text(encoding="utf-8"))
    page["id"] = "77" + page["id"]  # a page of its own: the sample's id is claimed by the file other tests wrote
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    with pytest.raises(EvidenceRefused) as refused:
        index_file(PipelineContext(elsewhere), load(CorpusFile(path, "alias/page.json")), force=True)
    assert "'no-such-alias' this worker writes to does not exist" in str(refused.value)
    assert "EVIDENT_OPENSEARCH_INDEX_ALIAS" in str(refused.value)


# -- a job always finishes: redelivery, cancelling, the unexpected ----------------------------------
TASK_WAIT = 300  # seconds one task may take here, the models loading first included


def _task_arguments(jobs, settings, tmp_path, *names: str) -> dict[str, dict]:
    """Task arguments of sample HTML pages copied under ``names`` into a folder with a files base URL."""
    from workers.folder import discover
    from workers.submit import file_task

    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"base": FILES_BASE}), encoding="utf-8")
    for name in names:
        shutil.copy(SAMPLES / "site" / "handbook" / "onboarding.html", folder / name)
    files, missing, _skipped = discover([str(folder)])
    assert not missing
    return {item.name: file_task(item, jobs, settings)[0] for item in files}


def _run(worker, job_id: str, name: str, arguments: dict) -> dict:
    """One task through the broker and the worker, as a delivery of it; returns what the task returned."""
    return worker.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": name, "force": True,
                                                            **arguments}).get(timeout=TASK_WAIT)


def test_a_task_delivered_again_after_it_counted_counts_nothing(worker, jobs, settings, pruned_after, tmp_path):
    pruned_after(tmp_path / "pages")
    (name, arguments), = _task_arguments(jobs, settings, tmp_path, "a.html").items()
    job_id = jobs.create(1)
    assert _run(worker, job_id, name, arguments)["outcome"] == "done"
    again = _run(worker, job_id, name, arguments)  # its worker died after counting, before acknowledging it
    assert again == {"file": name, "outcome": "done", "counted": "before"}
    status = jobs.status(job_id)
    assert (status.done, status.failed, status.state) == (1, 0, "finished") and not status.errors


def test_a_file_its_worker_died_on_each_time_is_recorded_as_failed(worker, jobs, settings, tmp_path):
    (name, arguments), = _task_arguments(jobs, settings, tmp_path, "oom.html").items()
    job_id = jobs.create(1)
    for _ in range(settings.worker.max_deliveries):  # three deliveries whose worker was killed (out of memory)
        jobs.delivered(job_id, name)
    result = _run(worker, job_id, name, arguments)
    status = jobs.status(job_id)
    assert result["outcome"] == "failed" and (status.failed, status.finished) == (1, True)
    assert [e["reason"] for e in status.errors] == [
        f"{name}: its worker stopped (killed, or out of memory) each of the 3 times it read it "
        "([worker] max_deliveries 3); skipped"]


def test_the_files_of_a_cancelled_job_are_not_read(worker, jobs, settings, evidence_of, tmp_path):
    tasks = _task_arguments(jobs, settings, tmp_path, "one.html", "two.html")
    job_id = jobs.create(len(tasks))
    assert jobs.cancel(job_id).state == "cancelling"
    for name, arguments in tasks.items():
        assert _run(worker, job_id, name, arguments)["outcome"] == "cancelled"
    status = jobs.status(job_id)
    assert (status.done, status.cancelled, status.state) == (0, 2, "cancelled")
    assert not [e for e in evidence_of() if e["doc_id"].endswith(("one.html", "two.html"))]


def test_an_unexpected_error_is_a_sentence_and_the_job_goes_on(worker, jobs, settings, stores, pruned_after,
                                                               tmp_path):
    pruned_after(tmp_path / "pages")
    tasks = _task_arguments(jobs, settings, tmp_path, "good.html", "odd.html")
    odd = next(name for name in tasks if name.endswith("odd.html"))
    tasks[odd]["file"]["written_by"] = "a newer submitter"  # a field this worker's SourceFile does not know
    job_id = jobs.create(len(tasks))
    for name, arguments in tasks.items():
        worker.send_task("evident.ingest_file", kwargs={"job_id": job_id, "name": name, "force": True, **arguments})
    from workers.submit import wait_for_job

    status = wait_for_job(jobs, job_id, TASK_WAIT)
    assert (status.done, status.failed, status.state) == (1, 1, "finished")
    reason, = [e["reason"] for e in status.errors]
    assert reason.startswith(f"{odd}: could not be read as HTML (TypeError: ") and reason.endswith("); skipped")
    assert "written_by" in reason
    # Done means searchable: found at once, with no refresh by the test.
    found = stores.search(index=settings.opensearch.index_alias, body={"query": {"wildcard": {"doc_id": "*good.html"}}})
    assert found["hits"]["hits"]


def test_a_pdf_whose_lines_look_like_running_headers_is_found_and_an_encrypted_one_says_why(
        ingest, searcher, pruned_after, tmp_path):
    """Two pages whose only lines differ in their page number kept their text, and a PDF that needs a password
    ends with a recorded reason naming it: neither is "done" with its text silently gone."""
    from search.searcher import SearchRequest
    from tests.ingest.sources.pdf_helpers import builders

    pruned_after(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"base": FILES_BASE}), encoding="utf-8")
    (tmp_path / "zebra.pdf").write_bytes(builders.one_line_pages_pdf(
        ["zebracorn good pdf delta page 1", "zebracorn good pdf delta page 2"]))
    (tmp_path / "locked.pdf").write_bytes(builders.encrypted_pdf())
    (tmp_path / "handover.pdf").write_bytes(builders.owner_encrypted_pdf())
    status = ingest(tmp_path)
    assert (status.total, status.done, status.failed) == (3, 2, 1), status.errors
    reasons = {e["file"].split("/")[-1]: e["reason"] for e in status.errors}
    assert set(reasons) == {"locked.pdf", "handover.pdf"}
    assert "locked.pdf: an encrypted PDF that opens only with a password" in reasons["locked.pdf"]
    assert reasons["handover.pdf"].startswith("warning: ") and "handover.pdf: encrypted" in reasons["handover.pdf"]
    hits = searcher.search(SearchRequest(query="zebracorn good pdf delta")).hits
    assert hits and hits[0].url.startswith(f"{FILES_BASE}zebra.pdf")
