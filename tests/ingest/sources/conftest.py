"""The parsed PDFs several PDF test modules read: a generated structured PDF, the sample manual and an
image-only copy of it."""
from __future__ import annotations

import pytest

from tests.ingest.sources.pdf_helpers import SAMPLE_PDF, builders, parse


@pytest.fixture(scope="package")
def structured():
    return parse(builders.structured_pdf(), "travel.pdf")


@pytest.fixture(scope="package")
def manual():
    return parse(SAMPLE_PDF.read_bytes(), SAMPLE_PDF.name)


@pytest.fixture(scope="package")
def scanned():
    return parse(builders.scanned_copy(SAMPLE_PDF.read_bytes()), "field-service-manual-scanned.pdf")
