"""The parsed PDFs several PDF test modules read: a generated structured PDF and two bench PDFs."""
from __future__ import annotations

import pytest

from tests.ingest.sources.pdf_helpers import BENCH, builders, parse


@pytest.fixture(scope="package")
def structured():
    return parse(builders.structured_pdf(), "travel.pdf")


@pytest.fixture(scope="package")
def handbook():
    return parse((BENCH / "employee-handbook.pdf").read_bytes(), "employee-handbook.pdf")


@pytest.fixture(scope="package")
def scanned():
    return parse((BENCH / "security-guidelines-scanned.pdf").read_bytes(), "security-guidelines-scanned.pdf")
