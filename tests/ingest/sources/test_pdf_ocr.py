"""Scanned PDF pages read by Tesseract: availability, languages, limits, quality, scan noise."""
from __future__ import annotations

import re
import shutil

import pymupdf
import pytest

from ingest.blocks import ParseError
from ingest.config import IngestConfig
from ingest.sources.pdf import PdfSource
from ingest.sources.pdf_ocr import _tsv_lines
from tests.ingest.sources.pdf_helpers import SAMPLE_PDF, builders, of_kind, parse, word_recall


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
    assert parsed.errors == ["mixed.pdf: page 2: no text layer and OCR unavailable (tesseract not found); "
                             "the page skipped"]
    assert {b.page for b in parsed.blocks} == {1}
    assert of_kind(parsed, "passage")[0].text.startswith("Employees enter the building")


def test_ocr_language_data_missing():
    with pytest.raises(ParseError) as refused:
        parse(builders.scanned_pdf(), config=IngestConfig(ocr_languages="qqq"))
    assert str(refused.value) == ("doc.pdf: none of its 1 page(s) could be read (page 1: no text layer and OCR "
                                  "unavailable (no tesseract language data for qqq)); skipped")


def test_ocr_uses_the_languages_that_are_installed():
    parsed = parse(builders.scanned_pdf(), config=IngestConfig(ocr_languages="eng+qqq", ocr_dpi=200))
    assert parsed.errors == ["doc.pdf: OCR language data missing for qqq; read with eng instead"]
    assert "visitor badge" in of_kind(parsed, "pdf_page")[0].text


def test_enormous_page_is_not_ocred():
    parsed = parse(builders.huge_scanned_pdf(), source=PdfSource(tesseract_cmd=shutil.which("tesseract")))
    assert parsed.errors == ["doc.pdf: page 1: page too large to OCR (100 x 100 in, 900 Mpixel at 300 dpi); "
                             "the page skipped"]
    assert [b.page for b in of_kind(parsed, "passage")] == [2]


def test_scanned_copy_ocr_quality(scanned):
    """The sample manual rendered to images: OCR gives back the text layer's words, running header aside."""
    from samples.build_pdf import RUNNING_HEADER

    with pymupdf.open(SAMPLE_PDF) as original:
        reference = [page.get_text().replace(RUNNING_HEADER, "") for page in original]
    pages = of_kind(scanned, "pdf_page")
    assert [p.page for p in pages] == [1, 2, 3]
    assert scanned.errors == []
    for page in pages:
        assert page.meta["ocr"] is True and page.meta["ocr_confidence"] >= 80
        assert word_recall(reference[page.page - 1], page.text) >= 0.9
    sentences = {
        1: ["Servicing a TideSense buoy always takes two people: one technician on the buoy and one on the "
            "service boat who keeps the line and the radio."],
        2: ["To recalibrate the salinity probe, immerse it in the 35 PSU reference solution for twelve minutes, "
            "then confirm the reading in the service app.",
            "A difference of more than 0.2 °C means the sensor has to go back to the workshop."],
        3: ["Units that cannot be repaired at sea go back to the workshop at Pier 4."],
    }
    for page in pages:
        for sentence in sentences[page.page]:
            assert word_recall(sentence, page.text) >= 0.8, sentence


def test_tsv_lines_drop_scan_noise_and_read_bullets():
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "4\t1\t1\t1\t1\t0\t100\t100\t800\t40\t-1\t",
        "5\t1\t1\t1\t1\t1\t100\t100\t20\t40\t12\te",  # a bullet Tesseract could not read
        "5\t1\t1\t1\t1\t2\t140\t100\t200\t40\t95\tVisitors",
        "5\t1\t1\t1\t1\t3\t360\t100\t120\t40\t91\tsign",
        "5\t1\t1\t1\t1\t4\t500\t100\t10\t40\t30\t|",  # a speck
        "5\t1\t1\t1\t1\t5\t520\t60\t300\t160\t35\tscrawl",  # an unsure word four times too tall: a signature
        "4\t1\t1\t1\t2\t0\t100\t160\t800\t40\t-1\t",
        "5\t1\t1\t1\t2\t1\t100\t160\t10\t40\t20\t.",  # a line of noise only
    ]
    lines, confidence = _tsv_lines("\n".join([header, *rows]), 72 / 300)
    assert [line.text for line in lines] == ["- Visitors sign"]
    assert confidence == 93.0
    line = lines[0]
    assert line.ocr and (line.x0, line.y0) == (24.0, 24.0) and line.size == 40 * 72 / 300
