"""Index-aware grounding: term anchors, linking, term blocks; a generated book with its index."""
from __future__ import annotations

import pytest

from ingest.blocks import Block
from ingest.config import IngestConfig
from ingest.grounding import Anchor, anchor_terms, ground, lexical_similarity, link_anchors, page_texts, term_blocks
from ingest.index_records import IndexRecord, parse_index_records
from ingest.sources import SourceFile
from ingest.sources.pdf import PdfSource
from tests.ingest.sources.pdf_helpers import builders


# --------------------------------------------------------------------------- anchors

PAGES = {
    ("accounts-part1.pdf", 1): (
        "Ledger and journal\n\n"
        "Every firm keeps a ledger. This chapter explains what goes into it.\n\n"
        "Definition 1 (Ledger). A ledger is the book of accounts in which all\n"
        "transactions are summarised by account. Each account has a debit and a\n"
        "credit side. The balance of an account is the difference between them."
    ),
    ("accounts-part1.pdf", 2): "Recording\n\nA journal en-\ntry records one business transaction. "
                               "Entries are written in order. Nothing else.",
    ("accounts-part2.pdf", 1): "Double-entry\nbookkeeping records every transaction twice. Both sides are equal.",
}


def test_anchor_prefers_the_definition_and_takes_the_next_sentences():
    anchors, problems = anchor_terms([IndexRecord("Ledger", "accounts-part1.pdf", 1)], PAGES)
    assert problems == []
    (anchor,) = anchors
    assert anchor.sentence == "Definition 1 (Ledger)."
    assert anchor.definition is True
    assert anchor.text == ("Definition 1 (Ledger). A ledger is the book of accounts in which all transactions are "
                           "summarised by account. Each account has a debit and a credit side.")


def test_anchor_tolerates_line_breaks_and_hyphenation():
    pages = {key: text for key, text in PAGES.items() if key[0] != "accounts-part2.pdf"}
    pages[("archive/accounts-part2.pdf", 1)] = PAGES[("accounts-part2.pdf", 1)]  # matched by base name
    anchors, problems = anchor_terms([IndexRecord("Journal entry", "accounts-part1.pdf", 2),
                                      IndexRecord("Double-entry bookkeeping", "accounts-part2.pdf", 1)], pages)
    assert problems == []
    assert anchors[0].text == ("A journal entry records one business transaction. Entries are written in order. "
                               "Nothing else.")  # the sentence and the next two
    assert anchors[0].definition is False  # "records" is not a defining verb: the first mention
    assert anchors[1].text.startswith("Double-entry bookkeeping records every transaction twice.")


def test_anchor_falls_back_to_the_first_mention():
    anchors, _ = anchor_terms([IndexRecord("balance", "accounts-part1.pdf", 1)], PAGES, max_following=1)
    assert anchors[0].definition is False
    assert anchors[0].text == ("The balance of an account is the difference between them.")


def test_anchor_problems_are_reported():
    records = [IndexRecord("Ledger", "missing.pdf", 1), IndexRecord("Ledger", "accounts-part1.pdf", 9),
               IndexRecord("Accrual", "accounts-part1.pdf", 1)]
    anchors, problems = anchor_terms(records, PAGES)
    assert anchors == []
    assert problems == [
        "index term 'Ledger' (missing.pdf page 1): file not found; the entry skipped",
        "index term 'Ledger' (accounts-part1.pdf page 9): page not found (the file has pages 1-2); the entry skipped",
        "index term 'Accrual' (accounts-part1.pdf page 1): term not found on the page; the entry skipped",
    ]


# --------------------------------------------------------------------------- linking and blocks

def _anchor(term="Ledger", file="accounts-part1.pdf", page=1, text="A ledger is the book of accounts."):
    return Anchor(IndexRecord(term, file, page, "index.pdf"), text, text, True)


def test_lexical_similarity():
    scores = lexical_similarity("ledger book of accounts", ["the ledger is a book", "weather report", ""])
    assert scores[0] > scores[1] == 0 and scores[2] == 0


def test_link_anchors_picks_the_top_chunks_of_the_same_document():
    chunks = {
        "accounts-part1.pdf": [
            Block("passage", "The ledger is the book of accounts of a firm.", page=1),
            Block("passage", "Weather and tides.", page=2),
            Block("passage", "Accounts in the ledger have two sides.", page=2),
            Block("passage", "The book of accounts is closed every year; the ledger is archived.", page=3),
            Block("passage", "A ledger line.", page=4),
        ],
        "accounts-part2.pdf": [Block("passage", "The ledger is the book of accounts.", page=1)],
    }
    (anchor,) = link_anchors([_anchor()], chunks)
    assert len(anchor.linked) == 3
    assert [entry["page"] for entry in anchor.linked][0] == 1
    assert all(entry["kind"] == "passage" for entry in anchor.linked)
    assert anchor.linked[0]["score"] >= anchor.linked[1]["score"] >= anchor.linked[2]["score"] > 0
    assert 2 not in [entry["index"] for entry in anchor.linked[:0]]
    assert "Weather and tides." not in [entry["text"] for entry in anchor.linked]


def test_link_anchors_calls_the_given_similarity():
    calls = []

    def similarity(query, texts):
        calls.append((query, list(texts)))
        return [float(len(t)) for t in texts]

    chunks = [{"id": "e1", "text": "aa"}, {"id": "e2", "text": "aaaa"}, "aaa", {"id": "e4", "text": "a"}]
    (anchor,) = link_anchors([_anchor()], chunks, similarity, top=2)
    assert calls == [("A ledger is the book of accounts.", ["aa", "aaaa", "aaa", "a"])]
    assert [(e.get("id"), e["index"], e["score"]) for e in anchor.linked] == [("e2", 1, 4.0), (None, 2, 3.0)]


def test_term_blocks():
    anchor = _anchor()
    anchor.linked = [{"index": 0, "page": 1, "score": 0.5, "text": "x"}]
    anchor.heading_path = ["Ledger and journal"]
    other = _anchor("Accrual", "accounts-part2.pdf", 2, "An accrual recognises revenue.")
    blocks = term_blocks([anchor, other])
    assert [(b.kind, b.page) for b in blocks] == [("term", 1), ("term", 2)]
    assert blocks[0].text == "A ledger is the book of accounts."
    assert blocks[0].heading_path == ["Ledger and journal"]
    assert blocks[0].meta == {"term": "Ledger", "file": "accounts-part1.pdf", "page": 1,
                              "index_source": "index.pdf", "definition": True,
                              "linked": [{"index": 0, "page": 1, "score": 0.5, "text": "x"}]}
    assert [b.meta["term"] for b in term_blocks([anchor, other], file="accounts-part2.pdf")] == ["Accrual"]


def test_ground_end_to_end_on_generated_pdfs():
    source, config = PdfSource(), IngestConfig()
    docs = {name: source.parse(SourceFile(name, builders.book_pdf(name)), config) for name in builders.BOOK}
    records = parse_index_records(builders.index_pdf(), "index.pdf")
    problems = ground(records, docs)
    # "Double-entry bookkeeping" is named on its page but never defined: its first mention anchors it
    assert problems == []
    terms = {name: [b for b in parsed.blocks if b.kind == "term"] for name, parsed in docs.items()}
    assert [(b.meta["term"], b.page) for b in terms["accounts-part1.pdf"]] == [("Ledger", 1), ("Journal entry", 2)]
    assert [(b.meta["term"], b.page) for b in terms["accounts-part2.pdf"]] == [
        ("Double-entry bookkeeping", 1), ("Accrual", 2)]
    ledger = terms["accounts-part1.pdf"][0]
    assert ledger.text.startswith("Definition 1 (Ledger). A ledger is the book of accounts")
    assert ledger.heading_path == ["Ledger and journal"]
    assert ledger.meta["linked"][0]["page"] == 1 and len(ledger.meta["linked"]) <= 3
    assert page_texts(docs["accounts-part1.pdf"])[("accounts-part1.pdf", 2)].startswith("Recording")


# --------------------------------------------------------------------------- the bench book

@pytest.fixture(scope="module")
def book():
    """The generated two-part book and its index PDF (tests/ingest/fixtures/pdf/builders.py)."""
    source, config = PdfSource(), IngestConfig()
    docs = {n: source.parse(SourceFile(n, builders.book_pdf(n)), config) for n in builders.BOOK}
    records = parse_index_records(builders.index_pdf(), "accounts-index.pdf")
    return records, docs


def test_book_index_records(book):
    records, _ = book
    assert [(r.term, r.file, str(r.page)) for r in records] == builders.INDEX_ENTRIES
    assert all(r.index_source == "accounts-index.pdf" for r in records)


def test_book_anchors_are_the_definitions(book):
    records, docs = book
    pages = {}
    for name, parsed in docs.items():
        pages.update(page_texts(parsed))
    anchors, problems = anchor_terms(records, pages)
    assert problems == []
    assert [a.term for a in anchors] == [r.term for r in records]
    for anchor in anchors:
        assert anchor.definition is True and anchor.term in anchor.sentence
        assert len(anchor.text.split()) > len(anchor.sentence.split())  # the definition's own sentences follow
    numbered = [a for a in anchors if a.sentence.startswith("Definition ")]
    assert [a.term for a in numbered] == ["Ledger", "Journal entry", "Accrual"]


def test_book_ground_adds_term_blocks_to_the_right_pages(book):
    records, docs = book
    docs = {name: type(parsed)(parsed.document, list(parsed.blocks), list(parsed.errors))
            for name, parsed in docs.items()}
    assert ground(records, docs) == []
    terms = [(name, b) for name, parsed in docs.items() for b in parsed.blocks if b.kind == "term"]
    assert len(terms) == len(records)
    for name, block in terms:
        assert block.meta["file"] == name and block.page == block.meta["page"]
        assert block.meta["term"] in block.text
        assert block.meta["index_source"] == "accounts-index.pdf"
        linked = block.meta["linked"]
        assert 1 <= len(linked) <= 3
        assert linked[0]["page"] == block.page  # the passage holding the definition is the closest chunk
    ledger = next(b for _, b in terms if b.meta["term"] == "Ledger")
    assert ledger.heading_path == ["Ledger and journal"]
