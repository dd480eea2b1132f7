"""One file in, its document and evidence out: pick the source, parse, assemble."""
from __future__ import annotations

from ingest.assemble import build_evidence
from ingest.blocks import ParsedDocument, ParseError
from ingest.config import IngestConfig
from ingest.evidence import Evidence
from ingest.limits import clip_labels, limit_text
from ingest.sources import Source, SourceFile
from ingest.sources.confluence import ConfluenceSource
from ingest.sources.html import HtmlSource
from ingest.sources.pdf import PdfSource
from ingest.views import KeywordStats
from text.lemmas import Lemmatizer

SOURCES: tuple[Source, ...] = (ConfluenceSource(), PdfSource(), HtmlSource())
# Confluence's own title limit; a title repeats in every evidence of its page and before every sentence of the
# sentence view, so an immense one would make work growing with the square of the file's size.
MAX_TITLE_CHARS = 255


def source_for(file: SourceFile) -> Source:
    if not file.data.strip():
        raise ParseError(file.name, "empty file (no bytes, or only whitespace)")
    for source in SOURCES:
        if source.accepts(file):
            return source
    raise ParseError(file.name, "unsupported file type (expected Confluence JSON, HTML or PDF)")


def parse_file(file: SourceFile, config: IngestConfig) -> ParsedDocument:
    parsed = source_for(file).parse(file, config)
    parsed.document.acl_inherited = [list(level) for level in file.acl_inherited if level]
    parsed.document.breadcrumb = parsed.document.breadcrumb or list(file.breadcrumb)
    _apply_limits(parsed, file.name, config)
    return parsed


def _apply_limits(parsed: ParsedDocument, name: str, config: IngestConfig) -> None:
    """Refuse a read restriction naming an immense principal, cut immense labels, space keys, titles and text over
    ``max_document_chars``; each cut recorded as a sentence in ``parsed.errors``."""
    doc = parsed.document
    for principal in [*doc.acl, *(p for level in doc.acl_inherited for p in level)]:
        if len(principal) > config.max_label_chars:
            raise ParseError(name, f"a read restriction names a principal of {len(principal):,} characters, over "
                                   f"{config.max_label_chars} (EVIDENT_INGEST_MAX_LABEL_CHARS), so who may read it "
                                   "is unclear: not indexed rather than indexed as public")
    doc.labels, clipped = clip_labels(doc.labels, config.max_label_chars)
    if len(doc.space) > config.max_label_chars:
        doc.space, clipped = doc.space[:config.max_label_chars], clipped + 1
    if clipped:
        parsed.errors.append(f"{name}: {clipped} label(s) or space key(s) longer than {config.max_label_chars} "
                             "characters (EVIDENT_INGEST_MAX_LABEL_CHARS) were truncated")
    if len(doc.title) > MAX_TITLE_CHARS:
        parsed.errors.append(f"{name}: its title of {len(doc.title):,} characters was cut to {MAX_TITLE_CHARS}, "
                             "the longest title Confluence allows")
        doc.title = doc.title[:MAX_TITLE_CHARS]
    parsed.blocks, total = limit_text(parsed.blocks, config.max_document_chars)
    if total > config.max_document_chars:
        parsed.errors.append(f"{name}: its text is {total:,} characters, over the limit of "
                             f"{config.max_document_chars:,} (EVIDENT_INGEST_MAX_DOCUMENT_CHARS); partially "
                             f"indexed: the first {config.max_document_chars:,} characters, the rest left out")


def evidence_for(file: SourceFile, config: IngestConfig, lemmatizer: Lemmatizer,
                 stats: KeywordStats | None = None) -> tuple[ParsedDocument, list[Evidence]]:
    parsed = parse_file(file, config)
    return parsed, build_evidence(parsed, config, lemmatizer, stats, name=file.name, source_bytes=len(file.data))
