"""What the PDF source tests share: the fixture PDF builders, the sample manual, parsing and word recall."""
from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path

from tests.conftest import SAMPLES

from ingest.config import IngestConfig
from ingest.sources import SourceFile
from ingest.sources.pdf import PdfSource

_spec = importlib.util.spec_from_file_location(
    "pdf_fixture_builders", Path(__file__).resolve().parents[1] / "fixtures" / "pdf" / "builders.py")
builders = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builders)

SAMPLE_PDF = SAMPLES / "pdf" / "field-service-manual.pdf"  # 3 text pages: headings, lists, a table


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
