"""Index-aware grounding at the edge: an index file names term -> file -> page; anchor each term there.

When an ingested PDF or CSV turns out to be a back-of-book index (seed 000), the
files it points to are read from the same folder, parsed, and each term's
anchor (its first defining sentence and the next one or two) becomes ``term``
evidence of the page it lives on, linked to the three chunks of that document
most similar to it (by the embedder). Term evidence is kept under its own
document id per index file, so re-ingesting the index replaces exactly it.
"""
from __future__ import annotations

import dataclasses

from workers.folder import CorpusFile, load
from core.embedding import Embedder
from ingest.assemble import build_evidence
from ingest.blocks import ParsedDocument, ParseError
from ingest.config import IngestConfig
from ingest.evidence import TERM, Evidence
from ingest.grounding import ground
from ingest.index_records import parse_index_records
from text.lemmas import Lemmatizer
from ingest.pipeline import parse_file
from ingest.sources import SourceFile

MIN_RECORDS = 3  # fewer rows than this is a table that happens to have the columns, not an index


def embedding_similarity(embedder: Embedder):
    def similarity(query: str, texts: list[str]) -> list[float]:
        vectors = embedder.embed([query, *texts])
        head = vectors[0]
        return [sum(a * b for a, b in zip(head, v)) for v in vectors[1:]]

    return similarity


def index_records(file: SourceFile):
    """The file's index records, or [] when it is not an index."""
    try:
        records = parse_index_records(file.data, index_source=file.name)
    except (ParseError, ValueError, RuntimeError):
        return []
    return records if len(records) >= MIN_RECORDS else []


def term_evidence(item: CorpusFile, file: SourceFile, config: IngestConfig, embedder: Embedder,
                  lemmatizer: Lemmatizer) -> tuple[list[Evidence], list[str]]:
    """Term evidence for an index file, and the problems (missing files, pages, terms) to record."""
    records = index_records(file)
    if not records:
        return [], []
    folder = item.path.parent
    documents: dict[str, ParsedDocument] = {}
    problems: list[str] = []
    for name in sorted({r.file for r in records}):
        path = folder / name
        if not path.is_file():
            continue  # anchor_terms reports each record that points at a missing file
        try:
            documents[name] = parse_file(load(CorpusFile(path, name), config.files_base_url), config)
        except ParseError as exc:
            problems.append(f"index target {name}: {exc.reason}")
    problems += ground(records, documents, similarity=embedding_similarity(embedder))
    evidence: list[Evidence] = []
    for name, parsed in documents.items():
        terms = [b for b in parsed.blocks if b.kind == TERM]
        if terms:
            owner = dataclasses.replace(parsed.document, doc_id=term_doc_id(item.name, name))
            evidence += build_evidence(ParsedDocument(owner, terms), config, lemmatizer)
    return evidence, problems


def term_doc_id(index_name: str, target: str) -> str:
    return f"terms:{index_name}:{target}"
