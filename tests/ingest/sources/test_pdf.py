"""PDF -> blocks: generated fixture PDFs for every case (structure, OCR, broken files) and the bench PDFs."""
from __future__ import annotations

import difflib
import importlib.util
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED_BENCH

from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.sources import SourceFile
from ingest.sources import pdf as pdf_module
from ingest.sources.pdf import PdfSource

_spec = importlib.util.spec_from_file_location(
    "pdf_fixture_builders", Path(__file__).resolve().parents[1] / "fixtures" / "pdf" / "builders.py")
builders = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builders)

BENCH = SHARED_BENCH / "pdf"


def parse(data: bytes, name: str = "doc.pdf", config: IngestConfig | None = None,
          source: PdfSource | None = None, **file_fields):
    return (source or PdfSource()).parse(SourceFile(name, data, **file_fields), config or IngestConfig())


def of_kind(parsed, kind: str, page: int | None = None):
    return [b for b in parsed.blocks if b.kind == kind and (page is None or b.page == page)]


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def word_recall(reference: str, hypothesis: str) -> float:
    """Share of the reference's words that OCR reproduced in order."""
    ref, hyp = words(reference), words(hypothesis)
    matcher = difflib.SequenceMatcher(None, ref, hyp, autojunk=False)
    return sum(m.size for m in matcher.get_matching_blocks()) / max(len(ref), 1)


# --------------------------------------------------------------------------- the source interface

def test_accepts_by_suffix_or_magic():
    source = PdfSource()
    assert source.accepts(SourceFile("report.PDF", b""))
    assert source.accepts(SourceFile("download", b"%PDF-1.7\n..."))
    assert not source.accepts(SourceFile("page.json", b'{"id": "1"}'))
    assert not source.accepts(SourceFile("page.html", b"<html></html>"))


def test_document_fields():
    data = builders.structured_pdf()
    parsed = parse(data, "manuals/travel.pdf", IngestConfig(files_base_url="https://files.example.com/"),
                   acl=["finance"], lang="en")
    doc = parsed.document
    assert doc.doc_id == "pdf:manuals/travel.pdf"
    assert doc.source_type == "pdf"
    assert doc.url == "https://files.example.com/manuals/travel.pdf"
    assert doc.title == "Travel and Expense Manual"  # the PDF's metadata
    assert doc.acl == ["finance"] and doc.lang == "en"
    assert doc.author == "ACME Finance"
    assert doc.updated == "2025-03-01"

    given = parse(data, url="https://x.example/t.pdf", title="Manifest title")
    assert given.document.url == "https://x.example/t.pdf"
    assert given.document.title == "Manifest title"
    assert given.document.lang == ""


def test_title_falls_back_to_the_first_heading():
    parsed = parse(builders.mixed_pdf(), source=PdfSource(tesseract_cmd="/nonexistent/tesseract"))
    assert parsed.document.title == "Building access"


# --------------------------------------------------------------------------- a structured text PDF

@pytest.fixture(scope="module")
def structured():
    return parse(builders.structured_pdf(), "travel.pdf")


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


def test_running_headers_footers_and_page_numbers_are_dropped(structured):
    for block in structured.blocks:
        assert builders.HEADER not in block.text
        assert builders.FOOTER not in block.text
        assert "Edition 4" not in block.text
        assert not re.search(r"Page \d of 3", block.text)


def test_hyphenation(structured):
    scope = next(b for b in of_kind(structured, "passage") if b.heading_path[-1:] == ["1.1 Scope"])
    assert "Booking outside the portal is an exception that needs" in scope.text
    assert "excep-" not in scope.text
    assert "Baden-Württemberg" in scope.text  # a real hyphen before a capital stays


def test_paragraph_across_a_page_break_stays_on_its_first_page(structured):
    receipts = [b for b in of_kind(structured, "passage") if b.heading_path == ["2 Limits", "2.1 Receipts"]]
    assert [b.page for b in receipts] == [2, 3]
    assert receipts[0].text.endswith("the amount and the purpose, written by hand on the receipt or added "
                                     "as a note in the portal.")
    assert receipts[1].text == "Missing receipts are replaced by a signed statement of the traveller."
    # the page itself still shows what is printed on it
    page3 = of_kind(structured, "pdf_page", 3)[0]
    assert page3.text.startswith("purpose, written by hand")


def test_bullet_list_is_one_block(structured):
    lists = of_kind(structured, "list")
    assert len(lists) == 1
    assert lists[0].heading_path == ["1 Purpose", "1.2 Principles"]
    assert lists[0].text.split("\n") == [
        "- Travel only when a meeting cannot take place online.",
        "- Choose the most economical option that is reasonable for the purpose of the trip.",
        "- Book through the travel portal Wayfarer.",
    ]
    before_after = [b.text for b in structured.blocks if b.page == 1 and b.kind == "passage"]
    assert "Three principles guide every trip:" in before_after
    assert "Exceptions to these principles are decided by the head of unit." in before_after


def test_table_is_verbalized_and_kept_out_of_passages(structured):
    tables = of_kind(structured, "table")
    assert len(tables) == 1
    table = tables[0]
    assert table.page == 2 and table.heading_path == ["2 Limits"]
    assert table.meta == {"table_no": 1, "rows": 3}
    assert table.text.startswith("Table 1 columns: Expense, Limit, Approval.")
    rows = of_kind(structured, "table_row")
    assert [r.meta for r in rows] == [{"table_no": 1, "row_no": n} for n in (1, 2, 3)]
    assert rows[0].text == "Row 1 in Table 1: Expense is Hotel night, and Limit is EUR 140, and Approval is Team lead"
    for block in of_kind(structured, "passage"):
        assert "Hotel night" not in block.text and "Head of unit" not in block.text
    # reading order: intro passage, table, rows, the note after the table
    page2 = [b.kind for b in structured.blocks if b.page == 2]
    assert page2 == ["pdf_page", "passage", "table", "table_row", "table_row", "table_row", "passage", "passage"]


def test_one_pdf_page_block_per_page(structured):
    pages = of_kind(structured, "pdf_page")
    assert [p.page for p in pages] == [1, 2, 3]
    assert all(p.meta == {"ocr": False} for p in pages)
    assert "Hotel night | EUR 140 | Team lead" in pages[1].text
    assert pages[0].text.startswith("1 Purpose\n\n1.1 Scope\n\nThis manual explains")


# --------------------------------------------------------------------------- OCR

def test_scanned_page_is_ocred():
    parsed = parse(builders.scanned_pdf(), "visitors.pdf")
    assert parsed.errors == []
    page = of_kind(parsed, "pdf_page")[0]
    assert page.meta["ocr"] is True
    assert 60 <= page.meta["ocr_confidence"] <= 100
    for line in builders.SCANNED_LINES[2:]:
        if line:
            assert word_recall(line, page.text) >= 0.8, line
    passages = of_kind(parsed, "passage")
    assert passages and all(b.meta["ocr"] is True and b.meta["ocr_confidence"] == page.meta["ocr_confidence"]
                            for b in passages)
    assert passages[0].heading_path == ["Visitor Policy"]
    assert parsed.document.title == "Visitor Policy"


def test_mixed_pdf_reads_text_and_ocrs_the_image_page():
    parsed = parse(builders.mixed_pdf(), "mixed.pdf", IngestConfig(ocr_dpi=200))
    assert parsed.errors == []
    pages = of_kind(parsed, "pdf_page")
    assert [(p.page, p.meta["ocr"]) for p in pages] == [(1, False), (2, True)]
    assert "badge between 06:00 and 22:00" in pages[0].text
    assert word_recall("A host accompanies every visitor inside the building at all times.", pages[1].text) >= 0.8


def test_ocr_unavailable_is_a_page_error():
    parsed = parse(builders.mixed_pdf(), "mixed.pdf", source=PdfSource(tesseract_cmd="/nonexistent/tesseract"))
    assert parsed.errors == ["page 2: no text layer and OCR unavailable (tesseract not found)"]
    assert {b.page for b in parsed.blocks} == {1}
    assert of_kind(parsed, "passage")[0].text.startswith("Employees enter the building")


def test_ocr_language_data_missing():
    parsed = parse(builders.scanned_pdf(), config=IngestConfig(ocr_languages="qqq"))
    assert parsed.errors == ["page 1: no text layer and OCR unavailable (no tesseract language data for qqq)"]
    assert parsed.blocks == []


def test_ocr_uses_the_languages_that_are_installed():
    parsed = parse(builders.scanned_pdf(), config=IngestConfig(ocr_languages="eng+qqq", ocr_dpi=200))
    assert parsed.errors == ["OCR language data missing for qqq; used eng"]
    assert "visitor badge" in of_kind(parsed, "pdf_page")[0].text


def test_enormous_page_is_not_ocred():
    parsed = parse(builders.huge_scanned_pdf(), source=PdfSource(tesseract_cmd=shutil.which("tesseract")))
    assert parsed.errors == ["page 1: page too large to OCR (100 x 100 in, 900 Mpixel at 300 dpi)"]
    assert [b.page for b in of_kind(parsed, "passage")] == [2]


def test_a_failing_page_is_recorded_and_the_others_proceed(monkeypatch):
    real = pdf_module._text_lines

    def flaky(page):
        if page.number == 1:
            raise RuntimeError("boom")
        return real(page)

    monkeypatch.setattr(pdf_module, "_text_lines", flaky)
    parsed = parse(builders.structured_pdf())
    assert parsed.errors == ["page 2: unreadable page (RuntimeError: boom)"]
    assert {b.page for b in parsed.blocks} == {1, 3}


# --------------------------------------------------------------------------- broken files

def _reason(data: bytes, name: str = "bad.pdf") -> str:
    with pytest.raises(ParseError) as info:
        parse(data, name)
    assert info.value.source == name
    return info.value.reason


def test_encrypted_pdf():
    assert _reason(builders.encrypted_pdf()) == "encrypted PDF (password required)"


def test_truncated_pdf():
    data = builders.structured_pdf()
    for cut in (0.3, 0.7, 0.98):
        assert _reason(data[:int(len(data) * cut)]).startswith("truncated PDF")


def test_zero_pages():
    assert _reason(builders.zero_page_pdf()) == "no pages"


def test_corrupt_not_a_pdf_and_empty():
    assert _reason(b"%PDF-1.4\ngarbage garbage\n%%EOF\n") == "corrupt PDF: FileDataError: Failed to open stream"
    assert _reason(b"%PDF-1.4\n").startswith("truncated PDF")
    assert _reason(b"<html>not a pdf</html>") == "not a PDF (no %PDF- header)"
    assert _reason(b"") == "empty file"


def test_damaged_but_repairable_pdf_is_parsed_with_a_note():
    data = builders.structured_pdf()
    at = data.rfind(b"startxref")
    parsed = parse(data[:at] + b"startxref\n99\n%%EOF\n")
    assert len(parsed.errors) == 1 and parsed.errors[0].startswith("damaged PDF repaired on reading")
    assert len(of_kind(parsed, "pdf_page")) == 3


# --------------------------------------------------------------------------- the bench PDFs

@pytest.fixture(scope="module")
def handbook():
    return parse((BENCH / "employee-handbook.pdf").read_bytes(), "employee-handbook.pdf")


def test_handbook_block_counts(handbook):
    counts = Counter(b.kind for b in handbook.blocks)
    assert counts["pdf_page"] == 11
    assert counts["table"] == 1 and counts["table_row"] == 6
    assert counts["list"] == 3
    assert counts["passage"] >= 25
    assert handbook.errors == []


def test_handbook_chapters_are_headings(handbook):
    chapters = {b.heading_path[0] for b in handbook.blocks if b.heading_path}
    assert chapters == {"Contents", "1 Welcome", "2 Working Time", "3 Leave and Absence", "4 Pay and Benefits",
                        "5 Learning and Development", "6 Conduct and Ethics", "7 Information Security Basics",
                        "8 Leaving Talvik"}
    sections = {tuple(b.heading_path) for b in handbook.blocks if len(b.heading_path) == 2}
    assert ("2 Working Time", "2.3 Time account and overtime") in sections
    assert ("4 Pay and Benefits", "4.2 Benefits by country") in sections
    overtime = next(b for b in handbook.blocks if b.heading_path[-1:] == ["2.3 Time account and overtime"])
    assert overtime.page == 4


def test_handbook_benefits_table(handbook):
    table = of_kind(handbook, "table")[0]
    assert table.page == 7 and table.heading_path == ["4 Pay and Benefits", "4.2 Benefits by country"]
    assert table.text.startswith("Table 1 columns: Benefit, Germany, Czech Republic, USA.")
    rows = of_kind(handbook, "table_row", 7)
    assert len(rows) == 6
    assert rows[0].text.startswith("Row 1 in Table 1: Benefit is Company pension, and Germany is Employer adds 20 %")
    assert "USA is 401(k) plan with an employer match of up to 4 % of salary" in rows[0].text
    assert rows[2].text.endswith("USA is Team lunch every Friday")
    assert "Benefit is Learning budget" in rows[5].text and "EUR 1,500 per calendar year" in rows[5].text
    for block in of_kind(handbook, "passage"):
        assert "Team lunch every Friday" not in block.text
    # the caption after the table stays a passage
    assert any(b.text.startswith("Table 1: Main benefits by country") for b in of_kind(handbook, "passage", 7))


def test_handbook_has_no_running_headers_or_footers(handbook):
    for block in handbook.blocks:
        assert "Internal — for employees" not in block.text
        assert "Employee Handbook 2025" not in block.text
        assert "Version 3.1" not in block.text or block.page == 1  # the title page states the version
        assert not re.search(r"\bPage \d+\b", block.text)


def test_handbook_hyphenation_and_page_break(handbook):
    overtime = next(b for b in handbook.blocks if b.heading_path[-1:] == ["2.3 Time account and overtime"])
    assert "A payout of overtime is the exception and requires the approval" in overtime.text
    assert "excep-" not in overtime.text
    holidays = [b for b in handbook.blocks if b.kind == "passage" and b.heading_path[-1:] == ["2.5 Public holidays"]]
    assert [b.page for b in holidays] == [4]
    assert "and you receive a replacement day off that must be taken within the following three months" \
        in holidays[0].text
    assert holidays[0].text.endswith("record the hours in the same way.")


def test_handbook_lists(handbook):
    lists = {b.page: b.text.split("\n") for b in of_kind(handbook, "list")}
    assert sorted(lists) == [3, 10, 11]
    assert [len(lists[p]) for p in (3, 10, 11)] == [4, 4, 6]
    assert lists[3][0] == ("- Reliability. Our products run machines; we would rather ship late than ship "
                           "something we do not trust.")
    assert lists[11][-1] == "- documents and data carriers that contain company information"


@pytest.fixture(scope="module")
def scanned():
    return parse((BENCH / "security-guidelines-scanned.pdf").read_bytes(), "security-guidelines-scanned.pdf")


def test_scanned_bench_pdf_ocr_quality(scanned):
    reference = (BENCH / "security-guidelines-scanned.txt").read_text(encoding="utf-8").split("\f")
    pages = of_kind(scanned, "pdf_page")
    assert [p.page for p in pages] == [1, 2, 3]
    assert scanned.errors == []
    for page in pages:
        assert page.meta["ocr"] is True and page.meta["ocr_confidence"] >= 80
        # the footer ("INTERNAL  Page 1 of 3") is dropped on purpose; everything else should be there
        body = re.sub(r"INTERNAL\s+Page \d of 3", "", reference[page.page - 1])
        assert word_recall(body, page.text) >= 0.9
    sentences = {
        1: ["If a document carries no label, treat it as Internal.",
            "Confidential and Strictly Confidential information may only be sent outside the company in "
            "encrypted form."],
        2: ["Passwords must have at least 14 characters.",
            "Screens must lock automatically after at most 5 minutes of inactivity.",
            "Request the loaner laptop from IT at least 10 working days before departure."],
        3: ["Report every suspected security incident within 1 hour of noticing it, by e-mail to "
            "security@talvik.example or through the security hotline.",
            "Exceptions must be approved in writing by the CISO and are reviewed every 12 months."],
    }
    for page in pages:
        for sentence in sentences[page.page]:
            assert word_recall(sentence, page.text) >= 0.8, sentence


def test_scanned_bench_pdf_structure(scanned):
    assert scanned.document.title == "Information Security Guidelines"
    for block in scanned.blocks:
        assert not re.search(r"Page \d of 3", block.text)
    paths = {tuple(b.heading_path[-1:]) for b in scanned.blocks if b.kind != "pdf_page"}
    assert ("3 Passwords and authentication",) in paths
    assert ("5 Travel",) in paths
    lists = of_kind(scanned, "list", 1)
    assert lists and lists[0].text.startswith("- Public: approved for publication")


def test_book_parts_have_their_definitions_in_passages():
    parsed = parse((BENCH / "records-theory-part1.pdf").read_bytes(), "records-theory-part1.pdf")
    assert parsed.errors == []
    passages = of_kind(parsed, "passage")
    assert [b.page for b in of_kind(parsed, "pdf_page")] == [1, 2, 3, 4]
    fact = next(b for b in passages if "Definition 1.2 (Fact)." in b.text)
    assert fact.page == 2 and fact.heading_path == ["1 Facts and acts"]
    for block in parsed.blocks:
        assert "— 2 —" not in block.text and "Part I\n" not in block.text
