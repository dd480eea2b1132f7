"""The ingest task through the real Redis broker, the real Celery worker and the real OpenSearch; the optional
LLM summary view against an OpenAI-compatible endpoint served on loopback by the test (no LLM runs on this
machine)."""
from __future__ import annotations

import dataclasses
import json
import shutil

from tests.conftest import SAMPLES
from workers.folder import CorpusFile, load

RUNBOOK = SAMPLES / "wiki" / "pages" / "4456482.json"
FILES_BASE = "https://files.example.org/"


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
    doc_id = f"confluence:{page['id']}"
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
    assert evidence_of(f"pdf:{tmp_path.name}/good.pdf")


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
    doc_ids = ("html:no-urls/page.html", "pdf:no-urls/manual.pdf", f"confluence:{page['id']}")
    assert all(evidence_of(doc_id) == [] for doc_id in doc_ids)  # nothing of them is indexed

    monkeypatch.setattr(settings.ingest, "files_base_url", FILES_BASE)  # EVIDENT_INGEST_FILES_BASE_URL
    status = ingest(folder)
    assert (status.done, status.failed) == (3, 0), status.errors
    assert {e["url"] for e in evidence_of("html:no-urls/page.html")} == {f"{FILES_BASE}page.html"}
    assert {e["url"] for e in evidence_of(f"confluence:{page['id']}")} == {f"{FILES_BASE}page.json"}


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
