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

import csv
import dataclasses
from pathlib import PurePosixPath

from workers.folder import CorpusFile, FolderNotes, inside, load, require_web_url
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
    """The embedder's cosine of an anchor with each chunk, for ``ground``. Each text is embedded once per index
    file: every anchor of a document is compared with that document's same chunks, which were otherwise embedded
    again for each anchor (a text's vector is the same, up to rounding, whatever is embedded with it)."""
    vectors: dict[str, list[float]] = {}

    def similarity(query: str, texts: list[str]) -> list[float]:
        new = [text for text in dict.fromkeys([query, *texts]) if text not in vectors]
        if new:
            vectors.update(zip(new, embedder.embed(new)))
        head = vectors[query]
        return [sum(a * b for a, b in zip(head, vectors[text])) for text in texts]

    return similarity


def index_records(file: SourceFile):
    """The file's index records; [] when a PDF is not an index.

    A CSV is read only as an index, so one that is not (unreadable as CSV, or fewer than ``MIN_RECORDS`` rows
    with a term, a file and a page) raises ValueError naming it and saying so.
    """
    is_csv = PurePosixPath(file.name).suffix.lower() == ".csv"
    if is_csv and not file.data.strip():
        raise ValueError(f"{file.name}: the file is empty; a CSV is read as a back-of-book index with term, file "
                         f"and page columns, so it was skipped")
    try:
        records = parse_index_records(file.data, index_source=file.name)
    except (ParseError, ValueError, RuntimeError, csv.Error) as exc:
        if is_csv:
            raise ValueError(f"{file.name}: cannot be read as CSV ({exc}); skipped") from exc
        return []
    if len(records) < MIN_RECORDS and is_csv:
        raise ValueError(f"{file.name}: {len(records)} rows with a term, a file and a page; a CSV is read only as a "
                         f"back-of-book index (columns term,file,page, at least {MIN_RECORDS} rows), so it was "
                         f"skipped")
    return records if len(records) >= MIN_RECORDS else []


def index_targets(item: CorpusFile, file: SourceFile, files_base_url: str,
                  notes: FolderNotes | None = None) -> tuple[list[SourceFile], list[str]]:
    """The files an index file points to, read from its folder (none when it is not an index), and the
    problems of those that cannot be read. A target outside the source root (an absolute path, a ``..``, a
    symlink out) is refused unread, and each target is read through the gate every corpus file goes through
    (``workers.folder.load``). A file that is not there is left to ``ground``, which reports each record pointing
    at it."""
    targets: list[SourceFile] = []
    problems: list[str] = []
    for name in sorted({r.file for r in index_records(file)}):
        try:
            path = inside(item.root, item.path.parent, name)
        except ValueError as exc:
            problems.append(f"index target refused: {exc}")
            continue
        try:
            target = load(CorpusFile(path, name, item.root, item.source), files_base_url, notes)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"index target {name}: cannot read ({exc.strerror or exc})")
            continue
        except ValueError as exc:  # the gate's refusal or a manifest that holds it back, each naming it
            problems.append(f"index target {exc}")
            continue
        targets.append(dataclasses.replace(target, name=name))  # as the index names it, for ``ground``
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
            require_web_url(target.name, parsed.document.url, config.files_base_url)
        except (ParseError, ValueError) as exc:  # each names the target: "<name>: <reason>"
            problems.append(f"index target {exc}")
            continue
        documents[target.name] = parsed
    problems += ground(records, documents, similarity=embedding_similarity(embedder))
    evidence: list[Evidence] = []
    for name, parsed in documents.items():
        terms = [b for b in parsed.blocks if b.kind == TERM]
        if terms:
            owner = dataclasses.replace(parsed.document, doc_id=term_doc_id(file, name))
            evidence += build_evidence(ParsedDocument(owner, terms), config, lemmatizer)
    return evidence, problems


def term_doc_id(index: SourceFile, target: str) -> str:
    """The document id of the terms an index file anchors in one target (named as the index names it)."""
    return index.doc_id("terms", f"{index.name}:{target}")
