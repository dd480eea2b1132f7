"""Retrieval against the real OpenSearch with the sample corpus ingested through the real worker.

The facts come from the table in samples/README.md, so the docs and the tests cannot drift apart.
"""
from __future__ import annotations

import copy
import dataclasses

import pytest

from core.profile import recording
from search.multilingual import MULTILINGUAL_PART
from search.searcher import Searcher, SearchRequest, Turn
from search.sentences import SENTENCE_PART
from tests.conftest import SAMPLES


def facts() -> list[dict]:
    rows = [line for line in (SAMPLES / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("|")]
    start = next(i for i, r in enumerate(rows) if r.startswith("| Kind | Query |"))
    header = [c.strip() for c in rows[start].strip("|").split("|")]
    out = []
    for row in rows[start + 2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) != len(header):
            break
        out.append(dict(zip(header, cells)))
    return out


FACTS = facts()
RESTRICTED = [f for f in FACTS if f["Visible to"] != "everyone"]


def groups_of(fact: dict) -> list[str]:
    return [] if fact["Visible to"] == "everyone" else [fact["Visible to"]]


@pytest.mark.parametrize("fact", FACTS, ids=[f["Kind"] for f in FACTS])
def test_each_documented_fact_finds_its_page_first(sample_corpus, searcher, fact):
    response = searcher.search(SearchRequest(query=fact["Query"], groups=groups_of(fact)))
    assert response.hits, fact
    assert response.hits[0].url == fact["Expected URL"], [h.url for h in response.hits[:3]]


def test_pdf_phrase_shows_the_pdf_page_first(sample_corpus, searcher):
    hit = searcher.search(SearchRequest(query="immerse the salinity probe in reference solution")).hits[0]
    assert hit.url.endswith("field-service-manual.pdf#page=2")
    assert "<mark>" in hit.snippet


def test_a_mistyped_word_is_searched_as_meant_and_the_answer_says_so(sample_corpus, searcher):
    response = searcher.search(SearchRequest(query="immerse the salinty probe in reference solution"))
    assert response.spelling == {"salinty": "salinity"}
    assert response.hits[0].url.endswith("field-service-manual.pdf#page=2")
    assert searcher.search(SearchRequest(query="salinty probe", mode="baseline")).spelling == {}


def test_a_german_compound_the_pages_do_not_use_is_searched_by_its_words(sample_corpus, searcher):
    """The holiday page lists "Hochzeit" under "Sonderurlaub" and never says "Hochzeitsurlaub": searched as typed,
    the page comes first on "Tage" and shows no line about a wedding."""
    question = "Wie viele Tage Hochzeitsurlaub bekomme ich?"
    response = searcher.search(SearchRequest(query=question))
    assert response.spelling == {"hochzeitsurlaub": "hochzeit urlaub"}
    assert response.hits[0].title == "Urlaubsregelung", [h.title for h in response.hits[:3]]
    assert "Eigene <mark>Hochzeit</mark>: 2 Tage" in response.hits[0].snippet  # the answer, its word marked
    unsplit = copy.copy(searcher)
    unsplit.spelling = None
    assert "<mark>Hochzeit</mark>" not in unsplit.search(SearchRequest(query=question)).hits[0].snippet


def test_a_spelling_check_opensearch_refuses_leaves_the_question_as_typed_with_a_warning(sample_corpus, searcher,
                                                                                         stores):
    from search.spelling import SpellingCorrector
    from search.vocabulary import CorpusWords

    broken = copy.copy(searcher)
    broken.spelling = SpellingCorrector(stores, "evident-no-such-index", CorpusWords(stores, "evident-no-such-index"))
    response = broken.search(SearchRequest(query="immerse the salinty probe in reference solution"))
    assert response.spelling == {} and any("spelling check failed" in w for w in response.warnings)
    assert response.hits[0].url.endswith("field-service-manual.pdf#page=2")


def test_paraphrase_is_found_by_the_dense_side(sample_corpus, searcher):
    fact = next(f for f in FACTS if f["Kind"] == "paraphrase")
    dense = searcher.search(SearchRequest(query=fact["Query"], mode="dense"))
    assert fact["Expected URL"] in [h.url for h in dense.hits[:3]]


def test_rare_error_code_is_found_by_bm25(sample_corpus, searcher):
    fact = next(f for f in FACTS if f["Kind"] == "rare error code")
    bm25 = searcher.search(SearchRequest(query=fact["Query"], mode="bm25"))
    assert bm25.hits[0].url == fact["Expected URL"]
    assert "<mark>TS-E4471</mark>" in bm25.hits[0].snippet


@pytest.mark.parametrize("fact", RESTRICTED, ids=[f["Kind"] for f in RESTRICTED])
def test_restricted_page_is_never_shown_outside_its_group(sample_corpus, searcher, fact):
    for mode in ("bm25", "dense", "hybrid"):
        for groups in ([], ["some-other-group"]):
            response = searcher.search(SearchRequest(query=fact["Query"], groups=groups, mode=mode, k=50))
            assert fact["Expected URL"] not in [h.url for h in response.hits], (mode, groups)


def test_pages_are_grouped_once_with_their_other_evidence(sample_corpus, searcher):
    fact = next(f for f in FACTS if f["Kind"] == "table row with status")
    grouped = searcher.search(SearchRequest(query=fact["Query"], k=20))
    urls = [h.url for h in grouped.hits]
    assert len(urls) == len(set(urls))
    raw = searcher.search(SearchRequest(query=fact["Query"], k=20, group="none"))
    assert len({h.url for h in raw.hits}) < len(raw.hits)  # the same page several times without grouping


def test_follow_up_question_is_resolved_from_the_conversation(sample_corpus, searcher):
    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    first = searcher.search(SearchRequest(query="What does the error TS-E4471 mean?"))
    assert first.hits[0].url == runbook
    turn = Turn("What does the error TS-E4471 mean?", [{"url": h.url, "title": h.title} for h in first.hits[:3]])
    follow_up = searcher.search(SearchRequest(query="and how do I fix it?", history=[turn]))
    assert follow_up.hits[0].url == runbook
    assert "e4471" in follow_up.resolved_query.lower()


def test_self_contained_question_is_not_dragged_back(sample_corpus, searcher):
    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    german = next(f for f in FACTS if f["Kind"] == "German page")
    turn = Turn("What does the error TS-E4471 mean?", [{"url": runbook, "title": "Runbook"}])
    response = searcher.search(SearchRequest(query=german["Query"], history=[turn]))
    assert response.hits[0].url == german["Expected URL"]


@pytest.mark.parametrize("kind", ["German question, English page", "German question, English PDF"])
def test_german_question_reaches_an_english_page_through_the_word_list(sample_corpus, searcher, kind):
    from search.searcher import Searcher

    fact = next(f for f in FACTS if f["Kind"] == kind)
    response = searcher.search(SearchRequest(query=fact["Query"]))
    assert response.lang == "de" and response.translations["en"]
    assert response.hits[0].url == fact["Expected URL"] and response.verdict == "strong", response.translations
    monolingual = Searcher(searcher.settings, searcher.client, searcher.embedder, searcher.lemmatizer, lexicon=None)
    alone = monolingual.search(SearchRequest(query=fact["Query"]))  # not the right page, or not a good match
    assert (alone.hits[0].url if alone.hits else None, alone.verdict) != (fact["Expected URL"], "strong")


def test_server_side_hybrid_agrees_with_application_side_fusion(sample_corpus, searcher, settings):
    server = dataclasses.replace(settings, search=dataclasses.replace(settings.search, server_side=True))
    from search.searcher import Searcher

    server_searcher = Searcher(server, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon)
    for fact in FACTS:
        request = SearchRequest(query=fact["Query"], groups=groups_of(fact))
        assert server_searcher.search(request).hits[0].url == fact["Expected URL"], fact["Query"]


def test_filters_and_facets(sample_corpus, searcher):
    response = searcher.search(SearchRequest(query="buoy", filters={"space": ["OPS"]}, k=50))
    assert response.hits and all(h.space == "OPS" for h in response.hits)
    assert set(response.facets["space"]) == {"OPS"}
    everything = searcher.search(SearchRequest(query="buoy", k=50))
    assert everything.facets["kind"]


@pytest.mark.parametrize("fusion", ["rrf", "merge"])
def test_other_fusions_find_the_rare_code_page(sample_corpus, searcher, fusion):
    fact = next(f for f in FACTS if f["Kind"] == "rare error code")
    response = searcher.search(SearchRequest(query=fact["Query"], fusion=fusion, views=("context", "summary")))
    assert response.hits[0].url == fact["Expected URL"]


class _PrefersTitle:
    """A reranker that knows one page is the answer: its evidence scores 1, everything else 0."""

    def __init__(self, title: str):
        self.title = title
        self.seen: list[int] = []

    def run(self, query: str, texts: list[str]) -> list[float]:
        self.seen.append(len(texts))
        return [1.0 if text.startswith(self.title + " — ") else 0.0 for text in texts]


def test_reranker_reorders_the_best_fused_candidates(sample_corpus, searcher, settings):
    from search.searcher import Searcher

    before = searcher.search(SearchRequest(query="buoy", k=10))
    runner_up = before.hits[1]
    reranker = _PrefersTitle(runner_up.title)
    reranked = Searcher(settings, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon,
                        reranker=reranker).search(SearchRequest(query="buoy", k=10))
    assert reranker.seen == [settings.search.candidates]
    assert reranked.hits[0].url == runner_up.url != before.hits[0].url


def _turn(searcher, query: str) -> Turn:
    response = searcher.search(SearchRequest(query=query))
    return Turn(query, [{"url": h.url, "title": h.title} for h in response.hits[:3]])


def test_configured_llm_rewrites_the_follow_up(sample_corpus, searcher, endpoint):
    from search.rewrite import QueryRewriter

    url, requests, answer = endpoint
    lead = next(f for f in FACTS if f["Kind"] == "header-column table")
    answer["content"] = lead["Query"]
    from search.searcher import Searcher

    rewriting = Searcher(searcher.settings, searcher.client, searcher.embedder, searcher.lemmatizer,
                         searcher.lexicon, rewriter=QueryRewriter(url, "tiny"))
    turn = _turn(searcher, "Which TideSense models are in operation?")
    response = rewriting.search(SearchRequest(query="and who is in charge of them?", history=[turn]))
    assert len(requests) == 1 and turn.query in requests[0]["body"]["messages"][-1]["content"]
    assert response.resolved_query == lead["Query"] and not response.warnings
    assert response.hits[0].url == lead["Expected URL"]


def test_failing_llm_falls_back_to_the_rules_and_says_so(sample_corpus, searcher):
    from search.searcher import Searcher
    from search.rewrite import QueryRewriter

    runbook = next(f for f in FACTS if f["Kind"] == "rare error code")["Expected URL"]
    broken = Searcher(searcher.settings, searcher.client, searcher.embedder, searcher.lemmatizer,
                      searcher.lexicon, rewriter=QueryRewriter("http://127.0.0.1:9", "tiny", timeout=2))
    turn = _turn(searcher, "What does the error TS-E4471 mean?")
    response = broken.search(SearchRequest(query="and how do I fix it?", history=[turn]))
    assert response.hits[0].url == runbook
    assert len(response.warnings) == 1 and "127.0.0.1:9" in response.warnings[0]


CLOSEST_QUESTION = "How many minutes does the salinity probe stay in the reference solution?"


def test_a_question_asked_again_asks_opensearch_for_its_lists_and_its_closest_pages_only(sample_corpus, searcher):
    """The word look-ups and the question's vectors are kept from the first time; the sentence and the multilingual
    stage ask their k-NN queries in one ``_msearch`` (the multilingual vector kept: the stage runs even where it
    cannot move the first page)."""
    searcher.multilingual_vectors.of([CLOSEST_QUESTION])
    first = searcher.search(SearchRequest(query=CLOSEST_QUESTION, mode="hybrid", explain=True))
    assert {SENTENCE_PART, MULTILINGUAL_PART} <= {part for parts in first.contributions.values() for part in parts}
    with recording() as again:
        searcher.search(SearchRequest(query=CLOSEST_QUESTION, mode="hybrid"))
    trips = {name: figures.round_trips for name, figures in again.stages.items() if figures.round_trips}
    assert trips["retrieve"] == 1 and trips["closest"] == 1
    assert not {"spelling", "acronyms", "understand", "bm25"} & set(trips)  # the look-ups kept


def test_the_answer_cards_sentence_closeness_rides_along_with_the_closest_pages(sample_corpus, searcher):
    """The card's units are scored with the sentence vectors of the best pages' evidence, asked in the closest
    stage's ``_msearch``: a card costs no round trip of its own."""
    question = "Is the TideSense S3 Polar qualified for firmware 3.2.1?"
    searcher.search(SearchRequest(query=question))  # the look-ups kept
    with recording() as again:
        response = searcher.search(SearchRequest(query=question))
    assert response.answer is not None and response.answer.kind == "table_row"
    trips = {name: figures.round_trips for name, figures in again.stages.items() if figures.round_trips}
    assert trips["closest"] == 1 and "answer" not in trips
