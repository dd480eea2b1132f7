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


def test_an_index_from_an_older_template_gains_the_new_fields(stores, settings):
    """An upgrade that adds a field (``acl_levels``) must not make every write to the old index fail."""
    from core.index import index_template, init_index

    alias = "upgraded-test-evidence"  # not under the session alias: index templates may not overlap
    older = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    body = index_template(alias, settings.embedding.dimension)["template"]
    del body["mappings"]["properties"]["acl_levels"]
    stores.indices.create(index=f"{alias}-old", body={**body, "aliases": {alias: {}}})
    try:
        report = init_index(stores, older)
        assert report["added_fields"] == ["acl_levels"]
        evidence = {"id": "x:1", "doc_id": "x", "url": "https://example.org/x", "text": "hello",
                    "acl_levels": [{"principals": ["hr"]}]}
        assert replace_document(stores, older, "x", [evidence])["errors"] == []
    finally:
        stores.indices.delete(index=f"{alias}-old")
        stores.indices.delete_index_template(name=alias)



def search_segments(stores, index: str) -> int:
    return stores.indices.segments(index=index)["indices"][index]["shards"]["0"][0]["num_search_segments"]


def test_reindex_moves_the_evidence_behind_the_same_alias_and_a_merge_leaves_one_segment(stores, settings):
    from core.index import init_index, merge_segments, reindex

    alias = "reindexed-test-evidence"  # not under the session alias: index templates may not overlap
    scoped = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    init_index(stores, scoped)
    try:
        for n in range(3):  # refreshed after each write: a segment each
            replace_document(stores, scoped, f"r{n}", [{"id": f"r{n}:1", "doc_id": f"r{n}",
                                                        "url": f"https://example.org/r{n}", "text": "hello"}])
        old, = stores.indices.get_alias(name=alias)
        assert search_segments(stores, old) == 3
        merge_segments(stores, old)
        assert search_segments(stores, old) == 1
        report = reindex(stores, scoped)
        assert report["from"] == [old] and list(stores.indices.get_alias(name=alias)) == [report["to"]]
        assert stores.count(index=alias)["count"] == 3 and not stores.indices.exists(index=old)
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)
