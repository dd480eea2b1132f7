"""Who reads what: the ACL filter against evidence in the real OpenSearch index."""
from __future__ import annotations

import pytest

from core.index import replace_document, to_source
from ingest.evidence import Evidence
from search.retrievers import acl_filter

# doc id -> (own restriction, inherited restrictions): a page, a page under a restricted parent, a page
# restricted itself under a restricted parent, a page restricted to one user, a public page.
PAGES = {
    "acl:open": ([], []),
    "acl:child": ([], [["eng"]]),
    "acl:both": (["hr", "user:alice"], [["eng"]]),
    "acl:alice": (["user:alice"], []),
}


@pytest.fixture(scope="module")
def readable(stores, settings):
    for doc_id, (acl, inherited) in PAGES.items():
        evidence = Evidence(id=doc_id, doc_id=doc_id, kind="passage", url=f"https://wiki.example.com/{doc_id}",
                            title=doc_id, text="quarterly access review", acl=acl, acl_inherited=inherited)
        replace_document(stores, settings, doc_id, [to_source(evidence.to_dict(), {})])
    stores.indices.refresh(index=settings.opensearch.index_alias)

    def run(principals: list[str]) -> set[str]:
        body = {"size": 20, "query": {"bool": {"filter": [{"prefix": {"doc_id": "acl:"}}, acl_filter(principals)]}}}
        return {hit["_source"]["doc_id"] for hit in stores.search(index=settings.opensearch.index_alias, body=body)
                ["hits"]["hits"]}

    return run


def test_anonymous_reads_public_evidence_only(readable):
    assert readable([]) == {"acl:open"}


def test_a_restricted_parent_hides_its_subtree_from_outsiders(readable):
    assert readable(["hr"]) == {"acl:open"}
    assert readable(["eng"]) == {"acl:open", "acl:child"}


def test_every_restriction_on_the_way_down_must_admit_the_reader(readable):
    assert "acl:both" in readable(["eng", "hr"])
    assert "acl:both" in readable(["eng", "user:alice"])
    assert "acl:both" not in readable(["user:alice"])  # admitted by the page, not by its parent


def test_users_are_principals_beside_groups(readable):
    assert readable(["user:alice"]) == {"acl:open", "acl:alice"}
    assert readable(["user:bob"]) == {"acl:open"}


def _readers_of(stores, index: str, prefix: str, principals: list[str]) -> set[str]:
    body = {"size": 20, "query": {"bool": {"filter": [{"prefix": {"doc_id": prefix}}, acl_filter(principals)]}}}
    return {hit["_source"]["doc_id"] for hit in stores.search(index=index, body=body)["hits"]["hits"]}


def deep_pages() -> dict[str, list[list[str]]]:
    """Doc id -> its levels, more than the level fields hold: the last ones admit "legal" in common, or no one."""
    from core.index import ACL_LEVEL_FIELDS

    kept = len(ACL_LEVEL_FIELDS)
    return {"deep:some": [["eng"]] * (kept - 1) + [["hr", "legal"], ["legal", "ops"], ["legal"]],
            "deep:none": [["eng"]] * (kept - 1) + [["hr"], ["ops"]]}


def test_more_restrictions_than_level_fields_never_admit_a_reader_one_of_them_refuses(stores, settings):
    from core.index import NO_READER

    for doc_id, (own, *inherited) in deep_pages().items():
        evidence = Evidence(id=doc_id, doc_id=doc_id, kind="passage", url=f"https://wiki.example.com/{doc_id}",
                            title=doc_id, text="deep restrictions", acl=own, acl_inherited=inherited)
        replace_document(stores, settings, doc_id, [to_source(evidence.to_dict(), {})])
    alias = settings.opensearch.index_alias
    assert _readers_of(stores, alias, "deep:", ["eng", "legal"]) == {"deep:some"}
    assert _readers_of(stores, alias, "deep:", ["eng", "hr", "ops"]) == set()  # the last level refuses
    assert _readers_of(stores, alias, "deep:", ["eng", "hr", "ops", "legal", NO_READER]) == {"deep:some"}
    assert _readers_of(stores, alias, "deep:", ["hr", "legal", "ops"]) == set()  # the first levels refuse


def test_an_index_with_nested_restrictions_keeps_them_until_a_reindex_makes_them_level_fields(stores, settings):
    """An index made before the levels were fields holds them as nested objects: searches keep enforcing them,
    ``evident init`` advises a reindex, and the reindex moves them into the level fields with the same readers."""
    import dataclasses

    from core.index import (ACL_LEVEL_FIELDS, NESTED_ACL_PATH, acl_level_fields, index_template, init_index,
                            keeps_nested_acl, reindex)

    alias = "nested-acl-test-evidence"  # not under the session alias: index templates may not overlap
    older = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    body = index_template(alias, settings.embedding.dimension)["template"]
    for name in ACL_LEVEL_FIELDS:
        del body["mappings"]["properties"][name]
    body["mappings"]["properties"][NESTED_ACL_PATH] = {"type": "nested",
                                                       "properties": {"principals": {"type": "keyword"}}}
    stores.indices.create(index=f"{alias}-old", body={**body, "aliases": {alias: {}}})
    pages = {**PAGES, **{doc_id: (own, inherited) for doc_id, (own, *inherited) in deep_pages().items()}}
    try:
        for doc_id, (acl, inherited) in pages.items():
            levels = [{"principals": level} for level in [acl, *inherited] if level]
            stores.index(index=alias, id=doc_id, body={"id": doc_id, "doc_id": doc_id, "url": f"https://x/{doc_id}",
                                                        "text": "quarterly access review", "acl": acl,
                                                        NESTED_ACL_PATH: levels})
        stores.indices.refresh(index=alias)
        seen = {tuple(principals): _readers_of(stores, alias, "acl:", principals)
                for principals in ([], ["eng"], ["hr"], ["eng", "hr"], ["user:alice"], ["eng", "user:alice"])}
        assert seen[("hr",)] == {"acl:open"} and seen[("eng",)] == {"acl:open", "acl:child"}
        assert "acl:both" in seen[("eng", "hr")] and "acl:both" not in seen[("user:alice",)]
        assert "nested documents" in init_index(stores, older)["reindex_advised"]
        reindex(stores, older)
        assert not keeps_nested_acl(stores, alias) and "reindex_advised" not in init_index(stores, older)
        assert stores.get(index=alias, id="acl:both")["_source"]["acl_level_1"] == ["eng"]
        assert {principals: _readers_of(stores, alias, "acl:", list(principals)) for principals in seen} == seen
        for doc_id, (acl, inherited) in pages.items():  # the reindex merges past the last field as ingest does
            source = stores.get(index=alias, id=doc_id)["_source"]
            assert {name: source[name] for name in ACL_LEVEL_FIELDS if name in source} == \
                acl_level_fields(acl, inherited)
        assert _readers_of(stores, alias, "deep:", ["eng", "legal"]) == {"deep:some"}
        assert _readers_of(stores, alias, "deep:", ["eng", "hr", "ops"]) == set()
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)
