"""PDF page furniture: running headers, footers and page numbers are dropped."""
from __future__ import annotations

import re

from tests.ingest.sources.pdf_helpers import builders, of_kind, parse


def test_running_headers_footers_and_page_numbers_are_dropped(structured):
    for block in structured.blocks:
        assert builders.HEADER not in block.text
        assert builders.FOOTER not in block.text
        assert "Edition 4" not in block.text
        assert not re.search(r"Page \d of 3", block.text)


def test_sample_manual_has_no_running_header(manual):
    from samples.build_pdf import RUNNING_HEADER

    assert all(RUNNING_HEADER not in block.text for block in manual.blocks)


def test_a_document_of_one_line_a_page_keeps_its_lines():
    """Lines that differ only in their page number, in the header margin, are no running header when they are
    each page's only text: dropping them lost the whole document."""
    lines = ["zebracorn good pdf delta page 1", "zebracorn good pdf delta page 2"]
    parsed = parse(builders.one_line_pages_pdf(lines), "zebra.pdf")
    assert [b.text for b in of_kind(parsed, "pdf_page")] == lines and parsed.errors == []


def test_a_running_header_is_dropped_also_from_a_page_without_text_of_its_own():
    parsed = parse(builders.blank_page_pdf(), "blank-last.pdf")
    assert [b.page for b in of_kind(parsed, "pdf_page")] == [1, 2]
    assert not [b for b in parsed.blocks if builders.HEADER in b.text or builders.FOOTER in b.text
                or re.search(r"Page \d of 3|Edition 4", b.text)]
