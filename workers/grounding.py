"""Index-aware grounding at the edge: an index file names term -> file -> page; anchor each term there.

When an ingested PDF or CSV turns out to be a back-of-book index (seed 000), the
files it points to are read from the same folder by the submitting side
(``index_targets``) and sent with it; the worker parses them, and each term's
anchor (its first defining sentence and the next one or two) becomes ``term``
evidence of the page it lives on, linked to the three chunks of that document
most similar to it (by the embedder). Term evidence is kept under its own
document id per index file, so re-ingesting the index replaces exactly it.
"""
from __future__ import annotations

import dataclasses

from workers.folder import CorpusFile, load, require_web_url
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


def index_targets(item: CorpusFile, file: SourceFile, files_base_url: str) -> tuple[list[SourceFile], list[str]]:
    """The files an index file points to, read from its folder (none when it is not an index), and the
    problems of those that cannot be read. A file that is not there is left to ``ground``, which reports each
    record pointing at it."""
    targets: list[SourceFile] = []
    problems: list[str] = []
    for name in sorted({r.file for r in index_records(file)}):
        path = item.path.parent / name
        if not path.is_file():
            continue
        try:
            targets.append(load(CorpusFile(path, name), files_base_url))
        except (OSError, ValueError) as exc:
            problems.append(f"index target {name}: cannot read ({exc})")
    return targets, problems


def term_evidence(file: SourceFile, targets: list[SourceFile], config: IngestConfig, embedder: Embedder,
                  lemmatizer: Lemmatizer) -> tuple[list[Evidence], list[str]]:
    """Term evidence for an index file grounded in the files it points to (``index_targets``, sent with it),
    and the problems (missing files, pages, terms, a target without a URL) to record."""
    records = index_records(file)
    if not records:
        return [], []
    documents: dict[str, ParsedDocument] = {}
    problems: list[str] = []
    for target in targets:
        try:
            parsed = parse_file(target, config)
            require_web_url(target.name, parsed.document.url)
        except (ParseError, ValueError) as exc:  # each names the target: "<name>: <reason>"
            problems.append(f"index target {exc}")
            continue
        documents[target.name] = parsed
    problems += ground(records, documents, similarity=embedding_similarity(embedder))
    evidence: list[Evidence] = []
    for name, parsed in documents.items():
        terms = [b for b in parsed.blocks if b.kind == TERM]
        if terms:
            owner = dataclasses.replace(parsed.document, doc_id=term_doc_id(file.name, name))
            evidence += build_evidence(ParsedDocument(owner, terms), config, lemmatizer)
    return evidence, problems


def term_doc_id(index_name: str, target: str) -> str:
    return f"terms:{index_name}:{target}"
