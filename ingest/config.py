"""Ingestion settings; a part of the one settings object (core.settings), passed down."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field


@dataclass
class IngestConfig:
    # Sentence-aware chunking (seed 000, Algorithm 1) for sections too long for the embedder.
    chunk_max_words: int = 160  # all-MiniLM-L6-v2 reads 256 word pieces: about 160 words of prose
    chunk_min_words: int = 60  # a chunk cut shorter than this (a long sentence follows) seeds no overlap
    chunk_overlap_words: int = 25  # about a sentence repeated, so a fact cut at a boundary is whole once
    # What each evidence carries as context: "none", "title" or "all" (title, breadcrumb, headings, neighbours).
    context_mode: Literal["none", "title", "all"] = "all"
    table_rows: bool = True  # one evidence per verbalized table row besides the whole table
    summary_sentences: int = 2  # a snippet's length
    keyword_count: int = 8  # enough to name a section's topics; more only add noise to the keyword field
    ocr_languages: str = "eng+deu+spa"
    ocr_dpi: int = 300  # the resolution Tesseract reads body text best at
    files_base_url: str = ""  # URL prefix for files that carry no URL of their own
    # Limits on hostile or careless input: a hit is recorded as a sentence naming the file, never silent.
    max_document_chars: int = 1_000_000  # ~150,000 words, a 500-page manual; ingest costs ~1 min per million
    max_evidence_per_document: int = 5_000  # a 500-page manual makes ~3,000; each costs embeddings and index room
    # Bounds linear in a file's size, so that nothing repeating text (spans, nested macros, a title or neighbours on
    # every row) makes work outgrowing the file's bytes; a file under cost_floor_bytes counts as that big.
    # One evidence per this many bytes: the densest real markup, a table row of two short cells, takes ~30.
    bytes_per_evidence: Annotated[int, Field(gt=0)] = 16
    # Characters of text and context of all its evidence per byte: wiki pages make ~12, a dense table ~60.
    evidence_chars_per_byte: Annotated[int, Field(gt=0)] = 128
    cost_floor_bytes: Annotated[int, Field(ge=0)] = 1_024  # a short page makes its few evidence whatever its markup
    # Sentences of a document embedded for the sentence view, in reading order: as many as the evidence of a
    # 500-page manual, so the view at most doubles a document's embeddings (a 20 MB page held 16,397).
    max_sentences_per_document: int = 3_000
    # Leaf evidence of a document embedded for the multilingual view, in reading order: its model takes about 0.2 s
    # a leaf on one core here, so 500 take 100 s, a sixth of the worker's soft time limit (a 500-page manual's
    # 3,000 would take all of it); the bench's largest document has under 100.
    max_multilingual_leaves_per_document: int = 500
    max_table_cells: int = 20_000  # rows x columns; 2,000 rows of 10 columns is a data export's size already
    max_nesting_depth: int = 100  # real pages nest < 40 deep; the walker recurses ~3 frames per level (limit 1000)
    max_label_chars: int = 255  # Confluence's own label limit; OpenSearch refuses a term over 32 KB outright
    binary_sniff_bytes: int = 8_192  # the first KBs tell text from binary; reading more changes no verdict
    max_control_share: float = 0.02  # text has almost no control characters; random bytes have 12 %
