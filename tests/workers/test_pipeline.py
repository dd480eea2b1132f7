"""The ingest pipeline through the real Redis broker, the real Celery worker and the real OpenSearch."""
from __future__ import annotations

import json
import shutil

from tests.conftest import SAMPLES


def _evidence(client, settings, doc_id=None) -> list[dict]:
    client.indices.refresh(index=settings.opensearch.index_alias)
    query = {"term": {"doc_id": doc_id}} if doc_id else {"match_all": {}}
    result = client.search(index=settings.opensearch.index_alias,
                           body={"query": query, "size": 10000, "_source": ["id", "doc_id", "kind", "text",
                                                                            "heading_path", "url"]})
    return [h["_source"] for h in result["hits"]["hits"]]


def test_sample_corpus_ingests_into_typed_evidence(sample_corpus, stores, settings):
    assert sample_corpus.failed == 0, sample_corpus.errors
    assert sample_corpus.done == sample_corpus.total >= 7
    evidence = _evidence(stores, settings)
    kinds = {e["kind"] for e in evidence}
    assert {"passage", "list", "table", "table_row", "pdf_page"} <= kinds
    doc_ids = {e["doc_id"] for e in evidence}
    assert any(d.startswith("confluence:") for d in doc_ids)
    assert any(d.startswith("html:") for d in doc_ids)
    assert any(d.startswith("pdf:") for d in doc_ids)
    pdf_urls = {e["url"] for e in evidence if e["kind"] == "pdf_page"}
    assert "https://files.example.org/field-service-manual.pdf#page=2" in pdf_urls


def test_reingest_keeps_ids_and_count(sample_corpus, ingest, stores, settings):
    before = sorted(e["id"] for e in _evidence(stores, settings))
    status = ingest(SAMPLES, force=True)
    assert status.failed == 0 and status.done == status.total
    after = sorted(e["id"] for e in _evidence(stores, settings))
    assert after == before


def test_unchanged_files_are_skipped_when_ingest_runs_again(sample_corpus, ingest):
    status = ingest(SAMPLES)
    assert status.skipped == status.total and status.done == 0


def _page_with_sections():
    for path in sorted((SAMPLES / "wiki" / "pages").glob("*.json")):
        page = json.loads(path.read_text(encoding="utf-8"))
        if page["body"]["storage"]["value"].count("<h2>") >= 2 and not page["restrictions"]["read"][
                "restrictions"]["group"]["results"]:
            return path, page
    raise AssertionError("the sample corpus needs a page with two h2 sections")


def test_removed_section_disappears_after_reingest(worker, ingest, stores, settings, tmp_path):
    path, page = _page_with_sections()
    folder = tmp_path / "pages"
    folder.mkdir()
    shutil.copy(SAMPLES / "wiki" / "users.json", tmp_path / "users.json")
    page["id"] = "99" + page["id"]
    page["_links"]["webui"] += "-copy"
    (folder / "copy.json").write_text(json.dumps(page), encoding="utf-8")
    assert ingest(folder).done == 1
    doc_id = f"confluence:{page['id']}"
    body = page["body"]["storage"]["value"]
    last_h2 = body.rindex("<h2>")
    heading = body[last_h2 + 4:body.index("</h2>", last_h2)]
    before = _evidence(stores, settings, doc_id)
    assert any(heading in e["heading_path"] for e in before)

    page["body"]["storage"]["value"] = body[:last_h2]
    (folder / "copy.json").write_text(json.dumps(page), encoding="utf-8")
    assert ingest(folder).done == 1
    after = _evidence(stores, settings, doc_id)
    assert after and not any(heading in e["heading_path"] for e in after)
    assert {e["id"] for e in after} < {e["id"] for e in before}


def test_bad_files_are_recorded_and_do_not_stop_the_rest(worker, ingest, stores, settings, tmp_path):
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", tmp_path / "good.pdf")
    (tmp_path / "broken.json").write_text("{ not json", encoding="utf-8")
    data = (SAMPLES / "pdf" / "field-service-manual.pdf").read_bytes()
    (tmp_path / "truncated.pdf").write_bytes(data[: len(data) // 3])
    status = ingest(tmp_path)
    assert status.total == 3 and status.done == 1 and status.failed == 2
    reasons = {e["file"].split("/")[-1]: e["reason"] for e in status.errors}
    assert set(reasons) == {"broken.json", "truncated.pdf"}
    assert "broken.json" in reasons["broken.json"]
    assert _evidence(stores, settings, f"pdf:{tmp_path.name}/good.pdf")


def test_index_file_grounds_its_terms_through_the_worker(worker, ingest, stores, settings, searcher, tmp_path):
    from search.searcher import SearchRequest
    from ingest.grounding import parse_index_records
    from tests.conftest import SHARED_BENCH

    for name in ("records-theory-index.pdf", "records-theory-part1.pdf", "records-theory-part2.pdf",
                 "records-theory-part3.pdf"):
        shutil.copy(SHARED_BENCH / "pdf" / name, tmp_path / name)
    (tmp_path / "extra-index.csv").write_text("term,file,page\nFact,records-theory-part1.pdf,2\n"
                                              "Ghost,missing-part.pdf,1\nRecord,records-theory-part1.pdf,99\n"
                                              "Nothing,records-theory-part1.pdf,1\n", encoding="utf-8")
    status = ingest(tmp_path)
    assert status.failed == 0 and status.done == 5
    warnings = " ".join(e["reason"] for e in status.errors)
    assert "missing-part.pdf" in warnings and "99" in warnings  # reported, not silently dropped

    records = parse_index_records((tmp_path / "records-theory-index.pdf").read_bytes())
    stores.indices.refresh(index=settings.opensearch.index_alias)
    terms = stores.search(index=settings.opensearch.index_alias, body={
        "size": 100, "query": {"bool": {"filter": [{"term": {"kind": "term"}},
                                                   {"prefix": {"doc_id": f"terms:{tmp_path.name}/records"}}]}}})
    anchors = {h["_source"]["meta"]["term"]: h["_source"] for h in terms["hits"]["hits"]}
    assert set(anchors) == {r.term for r in records}
    for record in records:
        assert anchors[record.term]["url"].endswith(f"{record.file}#page={record.page}")
        assert len(anchors[record.term]["meta"]["linked"]) == 3

    record = records[len(records) // 2]
    top = searcher.search(SearchRequest(query=f"What is {record.term.lower()} in record theory?")).hits[0]
    assert top.url.endswith(f"{record.file}#page={record.page}")


def test_prune_removes_the_evidence_of_files_gone_from_their_folder(worker, ingest, jobs, stores, settings, tmp_path):
    from workers.folder import discover
    from workers.submit import prune

    folder = tmp_path / "handbook"
    folder.mkdir()
    _, page = _page_with_sections()
    page["id"] = "98" + page["id"]  # its own doc id, apart from the sample corpus
    (folder / "page.json").write_text(json.dumps(page), encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    assert ingest(folder).done == 2
    names = {f"{folder.name}/page.json", f"{folder.name}/manual.pdf"}
    assert names <= set(jobs.ingested_files())
    pdf_doc = f"pdf:{folder.name}/manual.pdf"
    assert _evidence(stores, settings, pdf_doc)

    (folder / "manual.pdf").unlink()
    found, _, _ = discover([str(folder)])
    removed = prune(jobs, stores, settings, [str(folder)], found)
    assert list(removed) == [f"{folder.name}/manual.pdf"] and removed[f"{folder.name}/manual.pdf"] > 0
    assert _evidence(stores, settings, pdf_doc) == []
    assert jobs.ingested_files()[f"{folder.name}/page.json"] == [f"confluence:{page['id']}"]  # still there: kept
    assert _evidence(stores, settings, f"confluence:{page['id']}")
    assert prune(jobs, stores, settings, [str(folder)], found) == {}

    shutil.copy(SAMPLES / "pdf" / "field-service-manual.pdf", folder / "manual.pdf")
    status = ingest(folder)  # a file that comes back is ingested again, not skipped as unchanged
    assert status.done == 1 and status.skipped == 1
    assert _evidence(stores, settings, pdf_doc)

    for path in folder.iterdir():  # an emptied folder takes all its files out of the index
        path.unlink()
    removed = prune(jobs, stores, settings, [str(folder)], [])
    assert sorted(removed) == sorted(names)
    assert _evidence(stores, settings, pdf_doc) == [] == _evidence(stores, settings, f"confluence:{page['id']}")
