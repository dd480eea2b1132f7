"""What a source parser emits: a document and its content blocks in reading order.

Sources only recognise structure; ``ingest.assemble`` turns blocks into
contextualized evidence, so every source gets the same context and views.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ingest.evidence import Document


@dataclass
class Block:
    kind: str  # an evidence kind from ingest.evidence (passage, list, table, table_row, code, panel, pdf_page, term)
    text: str
    heading_path: list[str] = field(default_factory=list)
    page: int | None = None  # 1-based PDF page
    meta: dict = field(default_factory=dict)


@dataclass
class ParsedDocument:
    document: Document
    blocks: list[Block]
    errors: list[str] = field(default_factory=list)  # recoverable problems worth recording (e.g. an unreadable page)


class ParseError(Exception):
    """A source that cannot be parsed at all; the message names the input, the reason and that the file was
    skipped (said once, when the reason does not say it already)."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}" if reason.endswith("skipped") else f"{source}: {reason}; skipped")
        self.source = source
        self.reason = reason
