"""Index records from a borderless PDF table, CSV text and table rows."""
from __future__ import annotations

from ingest.index_records import (IndexRecord, parse_index_records, records_from_csv, records_from_pdf,
                                  records_from_rows)
from tests.ingest.sources.pdf_helpers import builders

EXPECTED = [IndexRecord(t, f, int(p), "index.pdf") for t, f, p in builders.INDEX_ENTRIES]


def test_records_from_a_borderless_pdf_table():
    assert records_from_pdf(builders.index_pdf(), "index.pdf") == EXPECTED
    assert parse_index_records(builders.index_pdf(), "index.pdf") == EXPECTED


def test_records_from_a_pdf_with_a_wrapped_term():
    records = records_from_pdf(builders.index_pdf(wrapped_term=True), "index.pdf")
    assert records == EXPECTED


def test_records_from_a_pdf_without_a_header_row():
    assert records_from_pdf(builders.index_pdf(header=False), "index.pdf") == EXPECTED


def test_records_from_csv():
    text = "term,file,page\nLedger,accounts-part1.pdf,1\n\"Journal entry\",accounts-part1.pdf,2\n"
    assert records_from_csv(text, "index.pdf") == EXPECTED[:2]
    semicolons = "Begriff;Datei;Seite\nLedger;accounts-part1.pdf;1\nJournal entry;accounts-part1.pdf;2, 4\n"
    assert records_from_csv(semicolons) == [IndexRecord("Ledger", "accounts-part1.pdf", 1),
                                            IndexRecord("Journal entry", "accounts-part1.pdf", 2),
                                            IndexRecord("Journal entry", "accounts-part1.pdf", 4)]
    no_header = "Ledger,accounts-part1.pdf,1\n"
    assert records_from_csv(no_header) == [IndexRecord("Ledger", "accounts-part1.pdf", 1)]
    assert parse_index_records(text.encode(), "index.pdf") == EXPECTED[:2]


def test_records_from_table_rows():
    rows = [["Page", "Term", "File"], ["1", "Ledger", "accounts-part1.pdf"], ["p. 2", "Journal entry",
                                                                             "accounts-part1.pdf"]]
    assert records_from_rows(rows, "index.pdf") == EXPECTED[:2]
    dicts = [{"Term": "Ledger", "File": "accounts-part1.pdf", "Page": "1"}]
    assert parse_index_records(dicts, "index.pdf") == EXPECTED[:1]
    # rows without a page column are not an index
    assert records_from_rows([{"Term": "Ledger", "Definition": "the book of accounts"}]) == []
    # entries without a file or a page are skipped
    assert records_from_rows([["Term", "File", "Page"], ["Ledger", "", "1"], ["Journal", "a.pdf", "-"]]) == []
