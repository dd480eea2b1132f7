"""The OpenSearch edge against the real node."""
from __future__ import annotations

import dataclasses

import pytest

from core.index import replace_document


def test_a_write_to_a_missing_alias_is_refused_and_creates_no_unmapped_index(stores, settings):
    alias = "evident-test-never-initialized"
    missing = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    source = {"id": "x:1", "doc_id": "x", "url": "https://example.org/x", "text": "hello", "space": "KB"}
    result = replace_document(stores, missing, "x", [source])
    assert result["written"] == 0
    assert len(result["errors"]) == 1 and alias in result["errors"][0]
    assert not stores.indices.exists(index=alias)


def test_a_document_written_again_before_a_refresh_keeps_no_evidence_it_no_longer_has(stores, settings):
    """A job's files are written unrefreshed: the second write of a page, within the refresh interval, drops the
    evidence of the first that it no longer holds (by the first write's ids), and what it wrote is searchable."""
    from core.index import make_searchable

    def page(*parts: str) -> list[dict]:
        return [{"id": f"again:{n}", "doc_id": "again", "url": "https://example.org/again", "text": text,
                 "space": "KB"} for n, text in enumerate(parts)]

    first = page("bike leasing", "lease a bike", "the old section")
    assert replace_document(stores, settings, "again", first, searchable=False)["errors"] == []
    second = replace_document(stores, settings, "again", page("bike leasing", "lease a bike"),
                              previous_ids=[e["id"] for e in first], searchable=False)
    assert second == {"written": 2, "removed": 1, "errors": []}
    make_searchable(stores, settings)
    found = stores.search(index=settings.opensearch.index_alias,
                          body={"query": {"term": {"doc_id": "again"}}, "_source": ["text"]})["hits"]["hits"]
    assert sorted(hit["_source"]["text"] for hit in found) == ["bike leasing", "lease a bike"]


def test_an_index_from_an_older_template_gains_the_new_fields(stores, settings):
    """An upgrade that adds fields (the ``acl_level_*`` fields) must not make every write to the old index fail;
    the old index also gets the template's merge policy (few deleted evidence left to skew BM25)."""
    from core.index import ACL_LEVEL_FIELDS, index_template, init_index

    alias = "upgraded-test-evidence"  # not under the session alias: index templates may not overlap
    older = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    body = index_template(alias, settings.embedding.dimension)["template"]
    for name in ACL_LEVEL_FIELDS:
        del body["mappings"]["properties"][name]
    del body["settings"]["index"]["merge.policy.deletes_pct_allowed"]
    stores.indices.create(index=f"{alias}-old", body={**body, "aliases": {alias: {}}})
    try:
        report = init_index(stores, older)
        assert report["added_fields"] == sorted(ACL_LEVEL_FIELDS)
        merge = stores.indices.get_settings(index=alias, name="index.merge.policy.deletes_pct_allowed")
        assert merge[f"{alias}-old"]["settings"]["index"]["merge"]["policy"]["deletes_pct_allowed"] == "5"
        evidence = {"id": "x:1", "doc_id": "x", "url": "https://example.org/x", "text": "hello",
                    "acl": ["hr"], "acl_level_0": ["hr"]}
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


def _strip_store(properties: dict) -> None:
    for field in properties.values():
        field.pop("store", None)
        _strip_store(field.get("properties", {}))


def test_an_index_without_stored_fields_is_searched_from_its_source_until_a_reindex_stores_them(stores, settings):
    """An upgrade must not change what a search returns: an index made before the search fields were stored
    gives them from ``_source`` (the anchor term from ``meta``), and ``evident reindex`` makes the same hits
    come from stored fields."""
    from core.index import index_template, init_index, reindex, stores_search_fields
    from search.retrievers import Retriever, run_each

    alias = "stored-test-evidence"  # not under the session alias: index templates may not overlap
    older = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    body = index_template(alias, settings.embedding.dimension)["template"]
    _strip_store(body["mappings"]["properties"])
    del body["mappings"]["properties"]["term"]
    stores.indices.create(index=f"{alias}-old", body={**body, "aliases": {alias: {}}})
    anchor = {"id": "t:1", "doc_id": "t", "kind": "term", "url": "https://example.org/t#page=2", "title": "Theory",
              "text": "Definition 1.3 (Act). An act is an occurrence.", "heading_path": ["1 Facts and acts"],
              "labels": ["records"], "updated": "2024-11-18T10:22:33.000Z", "meta": {"term": "Act", "page": 2}}
    page = {"id": "p:1", "doc_id": "p", "kind": "passage", "url": "https://example.org/p", "title": "Acts",
            "text": "An act of parliament.", "heading_path": [], "breadcrumb": ["Home", "Law"]}
    try:
        assert replace_document(stores, older, "t", [anchor])["errors"] == []
        assert replace_document(stores, older, "p", [page])["errors"] == []
        assert not stores_search_fields(stores, alias)
        assert "evident reindex" in init_index(stores, older)["reindex_advised"]
        search = [Retriever({"match": {"text": "act"}}, 1.0, lexical=True)]

        def found(stored: bool) -> dict[str, dict]:
            hits = run_each(stores, alias, search, 10, stored=stored)[0]["hits"]["hits"]
            return {hit["_id"]: hit["_source"] for hit in hits}

        before = found(stored=False)
        assert before["t:1"]["term"] == "Act" and before["t:1"]["heading_path"] == ["1 Facts and acts"]
        assert before["p:1"]["breadcrumb"] == ["Home", "Law"] and before["p:1"]["labels"] == []
        reindex(stores, older)
        assert stores_search_fields(stores, alias) and "reindex_advised" not in init_index(stores, older)
        assert found(stored=True) == before
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)


def _store_bytes(stores, index: str) -> int:
    return stores.indices.stats(index=index, metric="store")["indices"][index]["primaries"]["store"]["size_in_bytes"]


def test_on_one_node_an_index_made_for_several_is_advised_a_reindex_that_keeps_its_vectors_out_of_source(
        stores, settings):
    """Segment replication (an index made on two nodes) keeps every vector in ``_source``; on one node
    ``evident reindex`` rebuilds the index with document replication, whose vectors the k-NN plugin derives:
    the same evidence found by the same vectors, from a far smaller index."""
    import random

    from core.index import index_template, init_index, merge_segments, reindex, replicates_segments

    alias = "replicated-test-evidence"  # not under the session alias: index templates may not overlap
    scoped = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    body = index_template(alias, settings.embedding.dimension, nodes=2)["template"]
    stores.indices.create(index=f"{alias}-old", body={**body, "aliases": {alias: {}}})
    rng = random.Random(7)
    vectors = [[rng.uniform(-1, 1) for _ in range(settings.embedding.dimension)] for _ in range(40)]
    evidence = [{"id": f"v:{n}", "doc_id": "v", "url": "https://example.org/v", "text": f"vector {n}",
                 "vec_context": vector} for n, vector in enumerate(vectors)]
    try:
        assert replace_document(stores, scoped, "v", evidence)["errors"] == []
        assert replicates_segments(stores, alias)
        assert "segment replication" in init_index(stores, scoped)["reindex_advised"]
        merge_segments(stores, f"{alias}-old")
        before = _store_bytes(stores, f"{alias}-old")
        report = reindex(stores, scoped)
        assert not replicates_segments(stores, alias) and "reindex_advised" not in init_index(stores, scoped)
        assert _store_bytes(stores, report["to"]) < before * 0.7
        for n in (0, 17, 39):
            hit = stores.search(index=alias, body={"size": 1, "_source": False, "query": {
                "knn": {"vec_context": {"vector": vectors[n], "k": 1}}}})["hits"]["hits"][0]
            assert hit["_id"] == f"v:{n}" and hit["_score"] > 0.999  # cosine 1: the vector itself
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)


def test_the_client_writes_and_reads_the_types_a_search_and_an_ingest_send():
    from datetime import datetime, timezone

    import numpy as np
    from opensearchpy.exceptions import SerializationError

    from core.index import OrjsonSerializer

    serializer = OrjsonSerializer()
    body = {"vector": np.array([0.5, -0.25], dtype=np.float32), "when": datetime(2024, 4, 29, tzinfo=timezone.utc),
            "count": np.int64(3), "text": "Übersicht"}
    assert serializer.loads(serializer.dumps(body)) == {"vector": [0.5, -0.25], "when": "2024-04-29T00:00:00+00:00",
                                                        "count": 3, "text": "Übersicht"}
    assert serializer.dumps('{"as": "written"}') == '{"as": "written"}'
    with pytest.raises(SerializationError):
        serializer.dumps({"not json": object()})
    with pytest.raises(SerializationError):
        serializer.loads("{not json")


def test_expunging_deleted_evidence_gives_back_the_scores_of_a_fresh_index(stores, settings):
    """Evidence written again (an edited page, a re-ingest) leaves its old copy counted in BM25's statistics;
    once ``expunge_deleted`` has OpenSearch rewrite the segment, a search scores as before the rewrite."""
    import time

    from opensearchpy import helpers

    from core.index import expunge_deleted, init_index

    alias = "upkeep-test-evidence"  # not under the session alias: index templates may not overlap
    own = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    init_index(stores, own)
    topics = ["bike leasing", "travel expenses", "vacation days", "badge access", "laptop setup"]
    evidence = [{"_index": alias, "_id": f"p{n}:1", "id": f"p{n}:1", "doc_id": f"p{n}",
                 "url": f"https://example.org/p{n}", "kind": "passage", "title": f"Page {n}",
                 "text": f"{topics[n % 5]} rules for team {n}: ask your manager about {topics[(n + 1) % 5]}"}
                for n in range(100)]  # 3 written again are 3 % of the index: under the 5 % a merge leaves

    def scores() -> dict[str, float]:
        stores.indices.refresh(index=alias)
        hits = stores.search(index=alias, body={"size": 100, "query": {"match": {"text": "bike leasing manager"}}})
        return {hit["_id"]: hit["_score"] for hit in hits["hits"]["hits"]}

    try:
        helpers.bulk(stores, evidence, refresh=True)
        assert expunge_deleted(stores, alias) == {"deleted": 0, "live": 100, "merging": False}
        fresh = scores()
        helpers.bulk(stores, evidence[:3], refresh=True)  # the same evidence written again: its old copy deleted
        drifted = scores()
        assert drifted.keys() == fresh.keys() and drifted != fresh  # the deleted copies count
        upkeep = expunge_deleted(stores, alias)
        assert upkeep["deleted"] == 3 and upkeep["live"] == 100 and upkeep["merging"]
        deadline = time.monotonic() + 60
        while expunge_deleted(stores, alias)["deleted"] and time.monotonic() < deadline:
            time.sleep(0.5)
            stores.indices.refresh(index=alias)
        assert scores() == pytest.approx(fresh, rel=1e-6)
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)
    # before ``evident init`` there is nothing to keep up, and beat's task must not fail every 10 minutes
    assert expunge_deleted(stores, alias) == {"deleted": 0, "live": 0, "merging": False}


def scores_of(stores, alias: str, text: str) -> dict[str, float]:
    hits = stores.search(index=alias, body={"size": 100, "query": {"match": {"text": text}}})["hits"]["hits"]
    return {hit["_id"]: hit["_score"] for hit in hits}


def test_a_re_ingested_index_is_merged_until_no_deleted_evidence_is_left(stores, settings):
    """What ``scripts/eval-bench.sh`` does after its re-ingest: right after the writes, the shard's retention lease
    still holds the newest deletes and a merge keeps them; ``merge_deleted_away`` merges again until none is left,
    so BM25 scores as on an index written once."""
    from opensearchpy import helpers

    from core.index import init_index, merge_deleted_away

    alias = "merged-test-evidence"  # not under the session alias: index templates may not overlap
    own = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    init_index(stores, own)
    evidence = [{"_index": alias, "_id": f"m{n}:1", "id": f"m{n}:1", "doc_id": f"m{n}", "kind": "passage",
                 "url": f"https://example.org/m{n}", "text": f"badge access rules for team {n}"} for n in range(20)]
    try:
        helpers.bulk(stores, evidence, refresh=True)
        fresh = scores_of(stores, alias, "badge team")
        for _ in range(2):  # written again twice, as a re-ingest does: every old copy deleted
            helpers.bulk(stores, evidence, refresh=True)
        assert scores_of(stores, alias, "badge team") != fresh  # the deleted copies count in BM25
        assert merge_deleted_away(stores, alias, step=1, steps=90) == 0
        assert scores_of(stores, alias, "badge team") == pytest.approx(fresh, rel=1e-6)
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)
