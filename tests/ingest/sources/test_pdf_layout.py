"""PDF page furniture: running headers, footers and page numbers are dropped."""
from __future__ import annotations

import re

from tests.ingest.sources.pdf_helpers import builders


def test_running_headers_footers_and_page_numbers_are_dropped(structured):
    for block in structured.blocks:
        assert builders.HEADER not in block.text
        assert builders.FOOTER not in block.text
        assert "Edition 4" not in block.text
        assert not re.search(r"Page \d of 3", block.text)


def test_handbook_has_no_running_headers_or_footers(handbook):
    for block in handbook.blocks:
        assert "Internal — for employees" not in block.text
        assert "Employee Handbook 2025" not in block.text
        assert "Version 3.1" not in block.text or block.page == 1  # the title page states the version
        assert not re.search(r"\bPage \d+\b", block.text)
