"""PDF -> blocks: the source interface, passages and pages, broken files, the bench PDFs as a whole."""
from __future__ import annotations

from collections import Counter

import pytest

from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.sources import SourceFile
from ingest.sources import pdf as pdf_module
from ingest.sources.pdf import PdfSource
from tests.ingest.sources.pdf_helpers import builders, of_kind, parse

LONG_PDF_PAGES = 400  # pages of one line each: a long document, read by the running-lines rule page by page

def test_accepts_by_suffix_or_magic():
    source = PdfSource()
    assert source.accepts(SourceFile("report.PDF", b""))
    assert source.accepts(SourceFile("download", b"%PDF-1.7\n..."))
    assert not source.accepts(SourceFile("page.json", b'{"id": "1"}'))
    assert not source.accepts(SourceFile("page.html", b"<html></html>"))


def test_document_fields():
    data = builders.structured_pdf()
    parsed = parse(data, "manuals/travel.pdf", IngestConfig(), url="https://files.example.com/manuals/travel.pdf",
                   acl=["finance"], lang="en")
    doc = parsed.document
    assert doc.doc_id == "pdf:manuals/travel.pdf"
    assert doc.source_type == "pdf"
    assert doc.url == "https://files.example.com/manuals/travel.pdf"
    assert doc.title == "Travel and Expense Manual"  # the PDF's metadata
    assert doc.acl == ["finance"] and doc.lang == "en"
    assert doc.author == "ACME Finance"
    assert doc.updated == "2025-03-01"

    assert parse(data, "manuals/travel.pdf").document.url == ""  # no URL given: none made up (workers.folder)
    given = parse(data, url="https://x.example/t.pdf", title="Manifest title")
    assert given.document.url == "https://x.example/t.pdf"
    assert given.document.title == "Manifest title"
    assert given.document.lang == ""


def test_title_falls_back_to_the_first_heading():
    parsed = parse(builders.mixed_pdf(), source=PdfSource(tesseract_cmd="/nonexistent/tesseract"))
    assert parsed.document.title == "Building access"


def test_structured_headings_and_passages(structured):
    assert structured.errors == []
    paths = [tuple(b.heading_path) for b in of_kind(structured, "passage")]
    assert ("1 Purpose", "1.1 Scope") in paths
    assert ("1 Purpose", "1.2 Principles") in paths
    assert ("2 Limits",) in paths
    assert ("2 Limits", "2.1 Receipts") in paths
    assert ("3 Contact",) in paths
    # the two paragraphs under 1.1 on page 1 are one passage, paragraphs kept apart
    scope = [b for b in of_kind(structured, "passage") if b.heading_path == ["1 Purpose", "1.1 Scope"]]
    assert len(scope) == 1 and scope[0].page == 1
    assert scope[0].text.count("\n\n") == 1
    assert scope[0].text.startswith("This manual explains how employees of ACME book business travel")


def test_hyphenation(structured):
    scope = next(b for b in of_kind(structured, "passage") if b.heading_path[-1:] == ["1.1 Scope"])
    assert "Booking outside the portal is an exception that needs" in scope.text
    assert "excep-" not in scope.text
    assert "Baden-Württemberg" in scope.text  # a real hyphen before a capital stays


def test_paragraph_across_a_page_break_is_whole_on_its_first_page_and_its_rest_opens_the_next(structured):
    receipts = [b for b in of_kind(structured, "passage") if b.heading_path == ["2 Limits", "2.1 Receipts"]]
    assert [b.page for b in receipts] == [2, 3]
    assert receipts[0].text.endswith("the amount and the purpose, written by hand on the receipt or added "
                                     "as a note in the portal.")
    # where a reader who follows a link to page 3 finds them: the paragraph's last words, then the next one
    assert receipts[1].text == ("purpose, written by hand on the receipt or added as a note in the portal.\n\n"
                                "Missing receipts are replaced by a signed statement of the traveller.")
    # the page itself still shows what is printed on it
    page3 = of_kind(structured, "pdf_page", 3)[0]
    assert page3.text.startswith("purpose, written by hand")


def test_one_pdf_page_block_per_page(structured):
    pages = of_kind(structured, "pdf_page")
    assert [p.page for p in pages] == [1, 2, 3]
    assert all(p.meta == {"ocr": False} for p in pages)
    assert "Hotel night | EUR 140 | Team lead" in pages[1].text
    assert pages[0].text.startswith("1 Purpose\n\n1.1 Scope\n\nThis manual explains")


def test_a_pdf_page_carries_the_headings_in_force_where_it_begins(structured):
    pages = of_kind(structured, "pdf_page")
    assert pages[0].heading_path == []  # the first page's own headings are in its text
    # page 3 opens inside "2.1 Receipts", begun on page 2: its context names the section its first words are in
    assert pages[2].heading_path == ["2 Limits", "2.1 Receipts"]


def test_a_failing_page_is_recorded_and_the_others_proceed(monkeypatch):
    real = pdf_module.text_lines

    def flaky(page):
        if page.number == 1:
            raise RuntimeError("boom")
        return real(page)

    monkeypatch.setattr(pdf_module, "text_lines", flaky)
    parsed = parse(builders.structured_pdf())
    assert parsed.errors == ["doc.pdf: page 2 could not be read (RuntimeError: boom); the page skipped"]
    assert {b.page for b in parsed.blocks} == {1, 3}


def _reason(data: bytes, name: str = "bad.pdf") -> str:
    with pytest.raises(ParseError) as info:
        parse(data, name)
    assert info.value.source == name
    return info.value.reason


def test_a_pdf_that_needs_a_password_is_refused_saying_so():
    assert _reason(builders.encrypted_pdf(), "salaries.pdf") == (
        "an encrypted PDF that opens only with a password, which ingest is not given (an unencrypted copy would be "
        "read)")


def test_truncated_pdf():
    data = builders.structured_pdf()
    for cut in (0.3, 0.7, 0.98):
        assert _reason(data[:int(len(data) * cut)]).startswith("truncated PDF")


def test_zero_pages():
    assert _reason(builders.zero_page_pdf()) == "no pages"


def test_corrupt_not_a_pdf_and_empty():
    assert _reason(b"%PDF-1.4\ngarbage garbage\n%%EOF\n") == \
        "corrupt PDF that cannot be opened (FileDataError: Failed to open stream)"
    assert _reason(b"%PDF-1.4\n").startswith("truncated PDF")
    assert _reason(b"<html>not a pdf</html>") == "not a PDF (no %PDF- header)"
    assert _reason(b"") == "empty file (no bytes, or only whitespace)"


def test_damaged_but_repairable_pdf_is_parsed_with_a_note():
    data = builders.structured_pdf()
    at = data.rfind(b"startxref")
    parsed = parse(data[:at] + b"startxref\n99\n%%EOF\n")
    assert len(parsed.errors) == 1 and parsed.errors[0].startswith("doc.pdf: damaged PDF repaired on reading")
    assert len(of_kind(parsed, "pdf_page")) == 3


def test_sample_manual_block_counts(manual):
    counts = Counter(b.kind for b in manual.blocks)
    assert counts == {"pdf_page": 3, "passage": 9, "list": 2}
    assert manual.errors == []


def test_sample_manual_sections_and_lists(manual):
    calibration = next(b for b in manual.blocks if b.heading_path[-1:] == ["2.2 Salinity probe calibration"])
    assert calibration.page == 2 and calibration.kind == "passage"
    assert calibration.text.startswith("To recalibrate the salinity probe, immerse it in the 35 PSU reference")
    assert calibration.text.endswith("after a second failure, fit the spare sensor head.")
    leaving = next(b for b in manual.blocks if b.kind == "list" and b.heading_path[-1:] == ["3.3 Leaving the buoy"])
    assert leaving.text.splitlines() == [
        "- close the hull and check both seals",
        "- end service mode with the magnetic key: the status light turns green",
        "- wait for the first uplink to arrive at the gateway before the boat leaves"]


def test_book_parts_have_their_definitions_in_passages():
    parsed = parse(builders.book_pdf("accounts-part1.pdf"), "accounts-part1.pdf")
    assert parsed.errors == []
    assert [b.page for b in of_kind(parsed, "pdf_page")] == [1, 2]
    entry = next(b for b in of_kind(parsed, "passage") if "Definition 2 (Journal entry)." in b.text)
    assert entry.page == 2 and entry.heading_path == ["Recording"]


def test_a_long_pdf_of_one_line_pages_keeps_the_text_of_every_page():
    """The issue's 4,000-page PDF lost every page the same way as a 2-page one (each page's only line taken for a
    running header); the rule looks at each line once, so 400 pages show what 4,000 did at a tenth of the time."""
    lines = [f"zebracorn long pdf page {n}" for n in range(1, LONG_PDF_PAGES + 1)]
    parsed = parse(builders.one_line_pages_pdf(lines, size=(200, 200), y=16), "long.pdf")
    assert [b.text for b in of_kind(parsed, "pdf_page")] == lines and parsed.errors == []


def test_a_pdf_encrypted_with_an_owner_password_only_is_read_and_says_so():
    parsed = parse(builders.owner_encrypted_pdf(), "handover.pdf")
    assert [b.text for b in of_kind(parsed, "pdf_page")] == ["Shift handover checklist for the night crew."]
    assert parsed.errors == ["handover.pdf: encrypted (Standard V5 R6 256-bit AES) with an owner password only, which "
                             "restricts what readers may do but is not needed to open it: its text read and kept, "
                             "though its permissions forbid copying it"]


def test_a_pdf_without_any_text_is_refused_saying_so():
    assert _reason(builders.one_line_pages_pdf(["", ""]), "blank.pdf") == (
        "no text on any of its 2 page(s) (no text layer, and no page mostly an image for OCR to read)")
