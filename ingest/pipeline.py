"""One file in, its document and evidence out: pick the source, parse, assemble."""
from __future__ import annotations

from ingest.assemble import build_evidence
from ingest.blocks import ParsedDocument, ParseError
from ingest.config import IngestConfig
from ingest.evidence import Evidence
from ingest.sources import Source, SourceFile
from ingest.sources.confluence import ConfluenceSource
from ingest.sources.html import HtmlSource
from ingest.sources.pdf import PdfSource
from ingest.views import KeywordStats
from text.lemmas import Lemmatizer

SOURCES: tuple[Source, ...] = (ConfluenceSource(), PdfSource(), HtmlSource())


def source_for(file: SourceFile) -> Source:
    for source in SOURCES:
        if source.accepts(file):
            return source
    raise ParseError(file.name, "unsupported file type (expected Confluence JSON, HTML or PDF)")


def parse_file(file: SourceFile, config: IngestConfig) -> ParsedDocument:
    parsed = source_for(file).parse(file, config)
    parsed.document.acl_inherited = [list(level) for level in file.acl_inherited if level]
    parsed.document.breadcrumb = parsed.document.breadcrumb or list(file.breadcrumb)
    return parsed


def evidence_for(file: SourceFile, config: IngestConfig, lemmatizer: Lemmatizer,
                 stats: KeywordStats | None = None) -> tuple[ParsedDocument, list[Evidence]]:
    parsed = parse_file(file, config)
    return parsed, build_evidence(parsed, config, lemmatizer, stats)
