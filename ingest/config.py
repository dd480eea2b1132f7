"""Ingestion settings; a part of the one settings object (core.settings), passed down."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class IngestConfig:
    # Sentence-aware chunking (seed 000, Algorithm 1) for sections too long for the embedder.
    chunk_max_words: int = 160  # all-MiniLM-L6-v2 reads 256 word pieces: about 160 words of prose
    chunk_min_words: int = 60  # a chunk cut shorter than this (a long sentence follows) seeds no overlap
    chunk_overlap_words: int = 25  # about a sentence repeated, so a fact cut at a boundary is whole once
    # What each evidence carries as context: "none", "title" or "all" (title, breadcrumb, headings, neighbours).
    context_mode: str = "all"
    table_rows: bool = True  # one evidence per verbalized table row besides the whole table
    summary_sentences: int = 2  # a snippet's length
    keyword_count: int = 8  # enough to name a section's topics; more only add noise to the keyword field
    ocr_languages: str = "eng+deu+spa"
    ocr_dpi: int = 300  # the resolution Tesseract reads body text best at
    files_base_url: str = ""  # URL prefix for files that carry no URL of their own
