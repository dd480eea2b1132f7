"""The flat BM25 body against the real OpenSearch: the index's own tokens, and the same hits and scores as the
body written with ``multi_match`` (``search.flatten``, ``search.analysis``)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from search.analysis import FieldTokens
from search.conversation import carried_bm25
from search.retrievers import bm25_query, request_filters, text_fields
from search.searcher import Plan, SearchRequest, Turn
from tests.search.test_searcher import FACTS, groups_of

ODD_TEXT = "HVX-4.1 Release-Tests der Kunden's fd-prod-fra1 (2025-02-05) rollout"


@pytest.mark.parametrize("field", ["title", "title.en", "text.de", "lemmas"])
def test_a_text_gets_the_tokens_its_field_gives_it_whole(sample_corpus, stores, settings, field):
    alias = settings.opensearch.index_alias
    tokens = FieldTokens(stores, alias).analysis([(field, ODD_TEXT)])[(field, ODD_TEXT)]
    whole = stores.indices.analyze(index=alias, body={"field": field, "text": ODD_TEXT})["tokens"]
    assert tokens == dict(Counter(t["token"] for t in whole))


def _ranked(stores, alias: str, body: dict) -> list[tuple[str, float]]:
    hits = stores.search(index=alias, body={"size": 30, "_source": False, "query": body})["hits"]["hits"]
    return [(h["_id"], h["_score"]) for h in hits]


REQUESTS = [SearchRequest(query=f["Query"], groups=groups_of(f)) for f in FACTS] + [
    SearchRequest(query="and how do I fix it?", history=[Turn("What does the error TS-E4471 mean?", [])])]


@pytest.mark.parametrize("request_", REQUESTS, ids=[r.query for r in REQUESTS])
def test_the_flat_body_ranks_as_the_body_it_was_written_from(sample_corpus, searcher, stores, settings, request_):
    plan = Plan.of(request_, settings)
    query, _ = searcher.understand(request_, plan, request_.query)
    own = replace(query, resolved=replace(query.resolved, carried={}))
    written = bm25_query(own, request_filters(request_.groups, {}), settings.search, searcher.lemmatizer)
    if query.resolved.carried:
        written = carried_bm25(written, query.resolved.carried, settings.search.carried_boost,
                               [*text_fields(query.lang), "lemmas"])
    flat = searcher.write_bm25(request_, plan, query).full
    alias = settings.opensearch.index_alias
    assert "multi_match" not in str(flat)
    ranked, as_written = _ranked(stores, alias, flat), _ranked(stores, alias, written)
    assert [i for i, _ in ranked] == [i for i, _ in as_written] != []
    assert [s for _, s in ranked] == pytest.approx([s for _, s in as_written], rel=1e-5)


def test_an_alias_over_two_indices_is_searched_with_the_body_as_written(stores, settings):
    """OpenSearch analyzes in one index only: over two, BM25 goes unflattened and still finds the evidence."""
    from core.index import init_index
    from search.searcher import Searcher

    alias = "twofold-evidence"  # not under the session alias: index templates may not overlap
    twofold = replace(settings, opensearch=replace(settings.opensearch, index_alias=alias))
    try:
        init_index(stores, twofold)
        stores.indices.create(index=f"{alias}-second", body={"aliases": {alias: {}}})
        for n in (1, 2):
            stores.index(index=f"{alias}-second", id=f"e{n}", refresh=True, body={
                "id": f"e{n}", "doc_id": f"d{n}", "kind": "passage", "url": f"https://example.org/{n}",
                "title": f"Rollout {n}", "text": "The gateway rollout starts on Monday."})
        searcher = Searcher.from_settings(twofold, stores)
        hits = searcher.search(SearchRequest(query="When does the gateway rollout start?", mode="bm25")).hits
        assert {h.url for h in hits} == {"https://example.org/1", "https://example.org/2"}
        assert not searcher.flat_bm25
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)
