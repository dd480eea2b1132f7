"""The multilingual stage against the real OpenSearch, on the sample corpus ingested through the real worker: a
question read on its own, in any language, lifts its best pages by how close each one's closest leaf evidence
comes to it in multilingual-e5-small. What it shares with the sentence stage (the caller's filters, an index from
before its view) is tested for both in ``test_sentence_search``."""
from __future__ import annotations

import dataclasses

import pytest

from core.index import MULTILINGUAL_FIELD
from search.multilingual import MULTILINGUAL_PART
from search.retrievers import CROSS_LINGUAL_LIST
from search.searcher import Searcher, SearchRequest, Turn

MANUAL_PAGE = "https://files.example.org/field-service-manual.pdf#page=2"
GERMAN_QUESTION = "Wie lange muss die Salzgehaltssonde in der Referenzlösung bleiben?"
OPERATIONS_PAGE = "https://wiki.example.org/spaces/OPS/pages/4456449/TideSense+Operations"
VACATION_PAGE = "https://wiki.example.org/spaces/HR/pages/4522017/Urlaubsregelung"


def _gained(response) -> dict[str, float]:
    return {url: parts.get(MULTILINGUAL_PART, 0.0) for url, parts in response.contributions.items()}


def test_ingest_gives_each_leaf_evidence_a_multilingual_vector_and_no_container(sample_corpus, stores, settings):
    alias = settings.opensearch.index_alias
    with_vector = {"exists": {"field": MULTILINGUAL_FIELD}}
    assert stores.count(index=alias, body={"query": with_vector})["count"] > 0
    containers = {"bool": {"filter": [with_vector, {"terms": {"kind": ["section", "table", "page", "pdf_page"]}}]}}
    assert stores.count(index=alias, body={"query": containers})["count"] == 0


def test_a_german_question_lifts_the_english_page_that_answers_it_most(sample_corpus, searcher):
    response = searcher.search(SearchRequest(query="Wer leitet das Betriebsteam?", explain=True))
    gained = _gained(response)
    assert response.hits[0].url == OPERATIONS_PAGE and max(gained, key=gained.get) == OPERATIONS_PAGE
    assert gained[OPERATIONS_PAGE] > 0
    assert min(gained.values()) == 0.0  # the page farthest from the question among those compared gains nothing
    for hit in response.hits:  # the stage's gain is booked, so a page's parts still add up to its score
        assert sum(response.contributions[hit.url].values()) == pytest.approx(hit.score, abs=1e-5), hit.url


def _sharing_models(searcher, sentence_weight: float) -> Searcher:
    """A searcher of the same models and settings but the closest-match stages' weight, keeping no question's
    vector yet."""
    cfg = dataclasses.replace(searcher.settings.search, sentence_weight=sentence_weight)
    return Searcher(dataclasses.replace(searcher.settings, search=cfg), searcher.client, searcher.embedder,
                    searcher.lemmatizer, searcher.lexicon, multilingual_embedder=searcher.multilingual_embedder)


def test_an_english_question_comes_closest_to_the_german_page_that_answers_it(sample_corpus, searcher):
    """With a weight that lets the stage move any first page, it runs on every question read on its own."""
    reaching = _sharing_models(searcher, sentence_weight=5.0)
    gained = _gained(reaching.search(SearchRequest(query="When does leftover vacation expire?", explain=True)))
    assert max(gained, key=gained.get) == VACATION_PAGE and gained[VACATION_PAGE] > 0  # "Resturlaub verfällt am"


def test_a_search_whose_first_page_the_stage_cannot_move_embeds_no_multilingual_vector(sample_corpus, searcher):
    """The first page leads the English question's other pages by more than the closest stages can add: the
    question is not embedded in the multilingual model, and the first page is the one the stage gives when it
    runs (its vector kept from before)."""
    question = "When does leftover vacation expire?"
    settled = _sharing_models(searcher, searcher.settings.search.sentence_weight)
    response = settled.search(SearchRequest(query=question, explain=True))
    assert not any(_gained(response).values()) and settled.multilingual_vectors.kept(question) is None
    run = _sharing_models(searcher, searcher.settings.search.sentence_weight)
    run.multilingual_vectors.of([question])
    with_stage = run.search(SearchRequest(query=question, explain=True))
    assert any(_gained(with_stage).values()) and with_stage.hits[0].url == response.hits[0].url


def test_turned_off_or_for_a_follow_up_the_stage_adds_nothing(sample_corpus, searcher):
    off = dataclasses.replace(searcher.settings,
                              search=dataclasses.replace(searcher.settings.search, multilingual=False))
    unaided = Searcher.from_settings(off, searcher.client)
    assert unaided.multilingual_embedder is None
    plain = unaided.search(SearchRequest(query=GERMAN_QUESTION, explain=True))
    assert plain.hits and not any(_gained(plain).values())
    turn = Turn("recalibrate the salinity probe", [{"url": MANUAL_PAGE, "title": "Field Service Manual"}])
    follow_up = searcher.search(SearchRequest(query="Wie lange bleibt sie in der Lösung?", history=[turn],
                                              explain=True))
    assert follow_up.hits[0].url == MANUAL_PAGE and not any(_gained(follow_up).values())


def test_a_german_question_ranks_by_the_multilingual_vectors_of_every_evidence_and_an_english_one_does_not(
        sample_corpus, searcher):
    """The cross-lingual k-NN list (the multilingual stage's) reads a German question's meaning over the whole
    index, beside BM25 and the English embedder; an English question is read by those alone."""
    german = searcher.search(SearchRequest(query=GERMAN_QUESTION, explain=True))
    listed = {url: parts.get(CROSS_LINGUAL_LIST, 0.0) for url, parts in german.contributions.items()}
    assert german.hits[0].url == MANUAL_PAGE and listed[MANUAL_PAGE] > 0
    for hit in german.hits:  # the list's share is booked, so a page's parts still add up to its score
        assert sum(german.contributions[hit.url].values()) == pytest.approx(hit.score, abs=1e-5), hit.url
    english = searcher.search(SearchRequest(query="How long does the salinity probe stay in the reference solution?",
                                            explain=True))
    assert english.hits and not any(CROSS_LINGUAL_LIST in parts for parts in english.contributions.values())
