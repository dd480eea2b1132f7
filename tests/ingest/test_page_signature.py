"""Every evidence of a page carries the page's text signature and creation date, so whichever of them ranks
can be compared with another page's; a page and its copy get the same signature, documents of index-term
anchors none."""
from __future__ import annotations

import json

import pytest

from ingest import evidence as kinds
from ingest.assemble import build_evidence
from ingest.blocks import Block, ParsedDocument
from ingest.config import IngestConfig
from ingest.evidence import Document
from ingest.pipeline import evidence_for
from ingest.sources import SourceFile
from text.lemmas import Lemmatizer
from text.simhash import page_signature

PARAGRAPHS = [
    "Kelpie gateway rollouts start with a dry run on the staging rack in the harbour lab.",
    "The release captain posts the rollout window in the operations channel one day ahead.",
    "Before the first buoy is switched, export the gateway configuration and attach it to the change ticket.",
    "Roll out to the three canary buoys first and watch their telemetry for thirty minutes.",
    "If the canaries report stale salinity readings, stop the rollout and restore the exported configuration.",
]


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


def wiki_page(page_id: str, title: str, space: str) -> SourceFile:
    page = {"id": page_id, "type": "page", "title": title, "space": {"key": space},
            "history": {"createdDate": "2024-07-15T08:30:00.000Z"},
            "version": {"number": 1, "when": "2024-07-15T08:30:00.000Z"},
            "body": {"storage": {"value": "<h2>Steps</h2>" + "".join(f"<p>{p}</p>" for p in PARAGRAPHS)}},
            "_links": {"base": "https://wiki.example.org", "webui": f"/spaces/{space}/pages/{page_id}"}}
    return SourceFile(f"{page_id}.json", json.dumps(page).encode("utf-8"))


def test_every_evidence_of_a_page_and_of_its_copy_carries_one_signature(lemmatizer):
    original = evidence_for(wiki_page("1", "Kelpie Gateway Rollout", "OPS"), IngestConfig(), lemmatizer)[1]
    copy = evidence_for(wiki_page("2", "Copy of Kelpie Gateway Rollout", "~jdoe"), IngestConfig(), lemmatizer)[1]
    signatures = {e.page_simhash for e in [*original, *copy]}
    assert signatures == {page_signature("\n".join(PARAGRAPHS))}
    assert {e.kind for e in original} >= {kinds.PASSAGE, kinds.PAGE, kinds.PAGE_FACTS}
    assert {e.created for e in original} == {"2024-07-15T08:30:00.000Z"}


def test_a_document_of_index_term_anchors_has_no_signature(lemmatizer):
    anchors = [Block(kinds.TERM, f"{p} (index term {n})", page=2, meta={"term": f"term {n}"})
               for n, p in enumerate(PARAGRAPHS * 3)]
    document = Document(doc_id="terms:index.pdf:manual.pdf", source_type="pdf",
                        url="https://files.example.org/manual.pdf", title="Manual")
    evidence = build_evidence(ParsedDocument(document, anchors), IngestConfig(), lemmatizer)
    assert evidence and {e.page_simhash for e in evidence} == {""}
