"""Ingestion settings; a part of the one settings object (core.settings), passed down."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IngestConfig:
    # Sentence-aware chunking (seed 000, Algorithm 1) for sections too long for the embedder.
    chunk_max_words: int = 160
    chunk_min_words: int = 60
    chunk_overlap_words: int = 25
    # What each evidence carries as context: "none", "title" or "all" (title, breadcrumb, headings, neighbours).
    context_mode: str = "all"
    table_rows: bool = True  # one evidence per verbalized table row besides the whole table
    summary_sentences: int = 2
    keyword_count: int = 8
    ocr_languages: str = "eng+deu+spa"
    ocr_dpi: int = 300
    files_base_url: str = ""  # URL prefix for files that carry no URL of their own
