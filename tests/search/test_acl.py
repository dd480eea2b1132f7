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
