"""The sentence stage against the real OpenSearch, on the sample corpus ingested through the real worker: a
question read on its own lifts its best pages by how close each one's closest sentence comes to it. The tests
both closeness stages share (the caller's filters, an index from before the view) run here for both."""
from __future__ import annotations

import dataclasses

import pytest

from search.searcher import Searcher, SearchRequest, Turn
from search.multilingual import MULTILINGUAL_PART, multilingual_query
from search.sentences import SENTENCE_PART, closeness, sentence_query

MANUAL_PAGE = "https://files.example.org/field-service-manual.pdf#page=2"
QUESTION = "How many minutes does the salinity probe stay in the reference solution?"


def _gained(response, part: str = SENTENCE_PART) -> dict[str, float]:
    return {url: parts.get(part, 0.0) for url, parts in response.contributions.items()}


@pytest.fixture(scope="module")
def without_sentences(searcher) -> Searcher:
    settings = dataclasses.replace(searcher.settings,
                                   search=dataclasses.replace(searcher.settings.search, sentence_weight=0.0))
    return Searcher(settings, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon,
                    multilingual_embedder=searcher.multilingual_embedder)


def test_the_page_holding_the_answering_sentence_gains_most(sample_corpus, searcher, without_sentences):
    searcher.multilingual_vectors.of([QUESTION])  # the multilingual stage runs too, whatever the lead
    response = searcher.search(SearchRequest(query=QUESTION, explain=True))
    gained = _gained(response)
    assert gained[MANUAL_PAGE] > 0 and max(gained, key=gained.get) == MANUAL_PAGE == response.hits[0].url
    assert min(gained.values()) == 0.0  # the page farthest from the question among those compared gains nothing
    # Each page's score is the one it had without the closest-match stages (at weight 0 neither lifts a page), plus
    # what each booked to it.
    # Without near-duplicates folded: a folded page shows its best copy's score, and each copy gains by its own
    # closest sentence (its title, "Copy of ...", is part of it).
    unfolded = dict(query=QUESTION, collapse_duplicates=False)
    before = {h.url: h.score for h in without_sentences.search(SearchRequest(**unfolded)).hits}
    lifted = searcher.search(SearchRequest(**unfolded, explain=True))
    for hit in lifted.hits:
        if hit.url in before:  # a page lifted into this page of results was below it before
            booked = _gained(lifted).get(hit.url, 0.0) + _gained(lifted, MULTILINGUAL_PART).get(hit.url, 0.0)
            assert hit.score == pytest.approx(before[hit.url] + booked, abs=1e-5), hit.url
    assert SENTENCE_PART not in {p for parts in without_sentences.search(
        SearchRequest(query=QUESTION, explain=True)).contributions.values() for p in parts}


def test_a_follow_up_and_a_german_question_are_left_to_the_other_stages(sample_corpus, searcher):
    turn = Turn("recalibrate the salinity probe", [{"url": MANUAL_PAGE, "title": "Field Service Manual"}])
    follow_up = searcher.search(SearchRequest(query="How many minutes does it stay in the solution?",
                                              history=[turn], explain=True))
    assert follow_up.hits[0].url == MANUAL_PAGE and not any(_gained(follow_up).values())
    german = searcher.search(SearchRequest(query="Wie lange muss die Salzgehaltssonde in der Referenzlösung bleiben?",
                                           explain=True))
    assert german.hits[0].url == MANUAL_PAGE and not any(_gained(german).values())


# The two closeness stages (sentences, and leaves in the multilingual model) share their gains' arithmetic and
# their query's shape: each keeps the caller's filters and tolerates an index from before its field.
STAGES = {"sentences": (SENTENCE_PART, sentence_query), "multilingual": (MULTILINGUAL_PART, multilingual_query)}


@pytest.mark.parametrize("stage", STAGES)
def test_a_restricted_page_gains_nothing_for_a_caller_who_may_not_read_it(sample_corpus, searcher, stage):
    part = STAGES[stage][0]
    question = "What is the salary band of a Field Service Technician T2?"
    searcher.multilingual_vectors.of([question])  # the multilingual stage runs even where it cannot move the first page
    outsider = searcher.search(SearchRequest(query=question, explain=True, k=50))
    assert all("Salary+Bands" not in url for url in outsider.contributions)
    insider = searcher.search(SearchRequest(query=question, groups=["hr-team"], explain=True))
    assert insider.hits[0].url.endswith("Salary+Bands+2025") and _gained(insider, part)[insider.hits[0].url] > 0


@pytest.mark.parametrize("stage", STAGES)
def test_an_index_from_before_the_stages_view_changes_nothing_instead_of_failing(stores, stage):
    query = STAGES[stage][1]
    index = f"{stage}-less-evident-test"
    stores.indices.create(index=index, body={"mappings": {"properties": {"url": {"type": "keyword"}}}})
    try:
        stores.index(index=index, body={"url": MANUAL_PAGE}, refresh=True)
        answer = stores.search(index=index, body=query([0.1] * 384, [MANUAL_PAGE, "https://b"], []))
        assert closeness(answer) == {}
    finally:
        stores.indices.delete(index=index)
