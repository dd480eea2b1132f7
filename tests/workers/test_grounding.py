"""Index-term grounding at the edge: an index file ingested through the real worker anchors its terms."""
from __future__ import annotations

import pytest

from ingest.sources import SourceFile
from tests.ingest.sources.pdf_helpers import builders

PART = "accounts-part1.pdf"  # a part of a book on accounting, without an index of its own


def test_index_file_grounds_its_terms_through_the_worker(ingest, stores, settings, searcher, pruned_after,
                                                         tmp_path):
    from ingest.index_records import parse_index_records
    from search.searcher import SearchRequest

    pruned_after(tmp_path)
    (tmp_path / "manifest.json").write_text('{"base": "https://files.example.org/"}', encoding="utf-8")
    (tmp_path / "accounts-index.pdf").write_bytes(builders.index_pdf())
    for name in builders.BOOK:
        (tmp_path / name).write_bytes(builders.book_pdf(name))
    (tmp_path / "extra-index.csv").write_text("term,file,page\nJournal entry,accounts-part1.pdf,2\n"
                                              "Ghost,missing-part.pdf,1\nLedger,accounts-part1.pdf,99\n"
                                              "Nothing,accounts-part1.pdf,1\n", encoding="utf-8")
    status = ingest(tmp_path)
    assert status.failed == 0 and status.done == 4
    warnings = " ".join(e["reason"] for e in status.errors)
    assert "missing-part.pdf" in warnings and "99" in warnings  # reported, not silently dropped

    records = parse_index_records((tmp_path / "accounts-index.pdf").read_bytes())
    stores.indices.refresh(index=settings.opensearch.index_alias)
    terms = stores.search(index=settings.opensearch.index_alias, body={
        "size": 100, "query": {"bool": {"filter": [{"term": {"kind": "term"}},
                                                   {"prefix": {"doc_id": f"terms:{tmp_path.name}:{tmp_path.name}/accounts"}}]}}})
    anchors = {h["_source"]["meta"]["term"]: h["_source"] for h in terms["hits"]["hits"]}
    assert set(anchors) == {r.term for r in records}
    for record in records:
        assert anchors[record.term]["url"].endswith(f"{record.file}#page={record.page}")
        assert len(anchors[record.term]["meta"]["linked"]) == 2  # each part has two chunks, under the three linked

    # the anchors of a part are a document of their own, but the part's facts are stated once, by the part
    facts = stores.search(index=settings.opensearch.index_alias, body={
        "size": 100, "query": {"bool": {"filter": [{"term": {"kind": "page_facts"}},
                                                   {"prefix": {"url": "https://files.example.org/accounts"}}]}}})
    stated = [h["_source"]["url"] for h in facts["hits"]["hits"]]
    assert sorted(stated) == [f"https://files.example.org/accounts-{name}.pdf#page=1"
                              for name in ("index", "part1", "part2")]

    record = records[len(records) // 2]
    top = searcher.search(SearchRequest(query=f"What is {record.term.lower()} in bookkeeping?")).hits[0]
    assert top.url.endswith(f"{record.file}#page={record.page}")


# -- a CSV is read only as an index, and says so when it is not one ---------------------------------------------
@pytest.mark.parametrize("text, said", [
    ("a,b\n1,2\n", "docs/notes.csv: 0 rows with a term, a file and a page; a CSV is read only as a back-of-book index"),
    ("term,file,page\nFact,part.pdf,2\n", "docs/notes.csv: 1 rows with a term"),
    ("term,file,page\n" + "x" * 200_000 + "\n", "docs/notes.csv: cannot be read as CSV (field larger than field limit"),
    (" \n", "docs/notes.csv: the file is empty"),
])
def test_a_csv_that_is_not_an_index_is_refused_with_a_sentence(text, said):
    from workers.grounding import index_records

    with pytest.raises(ValueError) as refused:
        index_records(SourceFile("docs/notes.csv", text.encode()))
    assert str(refused.value).startswith(said) and str(refused.value).endswith("skipped")


def test_a_pdf_that_is_not_an_index_is_just_a_document():
    from workers.grounding import index_records

    assert index_records(SourceFile("docs/manual.pdf", builders.book_pdf(PART))) == []


def test_index_targets_are_read_only_inside_the_folder(tmp_path):
    from workers.folder import discover
    from workers.grounding import index_targets

    (tmp_path / "outside.html").write_text("<p>secret</p>", encoding="utf-8")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / PART).write_bytes(builders.book_pdf(PART))
    rows = [f"{term},{PART},1" for term in ("Ledger", "Journal entry")] + ["Secret,../outside.html,1"]
    (folder / "index.csv").write_text("term,file,page\n" + "\n".join(rows) + "\n", encoding="utf-8")
    [index, _part], _, _ = discover([str(folder)])
    targets, problems = index_targets(index, SourceFile(index.name, (folder / "index.csv").read_bytes()), "")
    assert [t.name for t in targets] == [PART] and targets[0].source == folder.name
    assert problems == [f"index target refused: '../outside.html' climbs out of its folder with '..'; only files "
                        f"inside {folder.resolve()} are read"]



def test_a_target_named_through_a_file_is_a_refusal_naming_it(tmp_path):
    from workers.folder import inside

    (tmp_path / PART).write_bytes(builders.book_pdf(PART))
    with pytest.raises(ValueError) as refused:  # the part named as if it were a folder: not an OSError escaping
        inside(tmp_path, tmp_path, f"{PART}/inner.pdf")
    assert str(refused.value) == f"'{PART}/inner.pdf' cannot be looked at (Not a directory); not read"


def test_each_text_is_embedded_once_per_index_file(settings):
    """Every anchor of a document is compared with the same chunks: they are embedded once, and each anchor's
    scores are those of embedding it with the chunks afresh."""
    from core.embedding import Embedder
    from workers.grounding import embedding_similarity

    embedder = Embedder(settings.embedding)
    asked: list[str] = []

    class Counted:  # the real embedder, its texts counted
        def embed(self, texts: list[str]) -> list[list[float]]:
            asked.extend(texts)
            return embedder.embed(texts)

    chunks = ["Leave is booked in Stundenwerk before it starts.",
              "Every employee has a learning budget of EUR 1,500.",
              "Reliability is the trustworthiness of a record as a statement of fact."]
    similarity = embedding_similarity(Counted())
    similarity("reliability of a record", chunks)
    scores = similarity("learning budget", chunks)
    assert sorted(asked) == sorted(["reliability of a record", "learning budget", *chunks])
    head, *vectors = embedder.embed(["learning budget", *chunks])
    assert scores == pytest.approx([sum(a * b for a, b in zip(head, v)) for v in vectors], abs=1e-6)
    assert max(range(len(chunks)), key=scores.__getitem__) == 1
