"""Index-term grounding at the edge: an index file ingested through the real worker anchors its terms."""
from __future__ import annotations

import shutil

from tests.conftest import SHARED_BENCH


def test_index_file_grounds_its_terms_through_the_worker(ingest, stores, settings, searcher, pruned_after,
                                                         tmp_path):
    from ingest.index_records import parse_index_records
    from search.searcher import SearchRequest

    pruned_after(tmp_path)
    (tmp_path / "manifest.json").write_text('{"base": "https://files.example.org/"}', encoding="utf-8")
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
