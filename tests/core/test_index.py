"""The OpenSearch edge against the real node."""
from __future__ import annotations

import dataclasses

from core.index import replace_document


def test_a_write_to_a_missing_alias_is_refused_and_creates_no_unmapped_index(stores, settings):
    alias = "evident-test-never-initialized"
    missing = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    source = {"id": "x:1", "doc_id": "x", "url": "https://example.org/x", "text": "hello", "space": "KB"}
    result = replace_document(stores, missing, "x", [source])
    assert result["written"] == 0
    assert len(result["errors"]) == 1 and alias in result["errors"][0]
    assert not stores.indices.exists(index=alias)
