"""The search box's syntax on the bundled samples through the real OpenSearch and ``Searcher``: a phrase in quotes
keeps the results whose evidence holds it, a -word leaves out those that hold it, a phrase no page holds gives the
results without it and says so."""
from __future__ import annotations

from search.searcher import SearchRequest, Turn


def holding(stores, settings, phrase: str) -> set[str]:
    """The evidence ids whose context holds ``phrase``, read from the index itself."""
    found = stores.search(index=settings.opensearch.index_alias, body={
        "size": 1000, "_source": ["id"], "query": {"match_phrase": {"context": phrase}}})
    return {hit["_source"]["id"] for hit in found["hits"]["hits"]}


def test_a_phrase_in_quotes_keeps_the_results_that_hold_it(searcher, stores, settings, sample_corpus):
    loose = searcher.search(SearchRequest("buoy service mode"))
    exact = searcher.search(SearchRequest('buoy "service mode"'))
    held = holding(stores, settings, "service mode")
    assert exact.hits and all(h.evidence_id in held for h in exact.hits)
    assert any(h.evidence_id not in held for h in loose.hits)  # without the quotes, pages that say less
    assert exact.query == 'buoy "service mode"' and "<mark>service</mark> <mark>mode</mark>" in exact.hits[0].snippet
    assert not exact.warnings


def test_a_minus_word_leaves_out_the_results_that_hold_it(searcher, stores, settings, sample_corpus):
    every = searcher.search(SearchRequest("TideSense buoy"))
    without = searcher.search(SearchRequest("TideSense buoy -firmware"))
    held = holding(stores, settings, "firmware")
    assert any(h.evidence_id in held for h in every.hits)
    assert without.hits and not any(h.evidence_id in held for h in without.hits)
    assert "firmware" not in without.resolved_query  # left out, never searched for


def test_a_phrase_no_page_holds_gives_the_results_without_it_and_says_so(searcher, sample_corpus):
    answered = searcher.search(SearchRequest('"purple buoy parade" service mode'))
    assert answered.hits and answered.total
    assert any("no page holds “purple buoy parade” as written" in w for w in answered.warnings)


def test_an_earlier_turns_minus_word_is_not_carried_into_a_follow_up(searcher, sample_corpus):
    follow_up = searcher.search(SearchRequest("and the battery?", history=[Turn("TideSense buoy -firmware")]))
    assert "firmware" not in follow_up.resolved_query and "tidesense" in follow_up.resolved_query.lower()
