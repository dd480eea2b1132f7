"""Writing small pages straight into the test index: one passage each, with its read groups."""
from __future__ import annotations

from core.index import replace_document, to_source
from ingest.evidence import Evidence


def index_passages(stores, settings, pages: dict[str, tuple[list[str], str]]) -> None:
    """Each page (doc id -> (read groups, text)) as one English passage, searchable when this returns."""
    for doc_id, (acl, text) in pages.items():
        evidence = Evidence(id=doc_id, doc_id=doc_id, kind="passage", url=f"https://wiki.example.com/{doc_id}",
                            title=doc_id, text=text, context=text, lang="en", acl=acl)
        replace_document(stores, settings, doc_id, [to_source(evidence.to_dict(), {})])
    stores.indices.refresh(index=settings.opensearch.index_alias)
