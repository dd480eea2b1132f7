"""A follow-up read with its conversation, on plain data: no services, the real lemmatizer."""
from __future__ import annotations

import pytest

from core.llm import LLMError
from search.conversation import (TERM_DECAY, carried_across, carried_bm25, carried_terms,
                                 conversation_reading, off_the_map, own_word_searches, resolve, shown_weights)
from search.lexicon import Lexicon
from search.query import ResolvedQuery
from search.schema import Turn
from text.detect import detect_language, known_word
from text.lemmas import Lemmatizer

REPORT = "https://wiki.example.com/spaces/ENG/pages/1/HVX+4.1+Release+Test+Report"
TURN = Turn("Which machine failed UEFI boot in the HVX 4.1 release test?",
            [{"url": REPORT, "title": "HVX 4.1 Release Test Report"}])


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


@pytest.mark.parametrize("query, leans_on_the_page", [
    ("How many machines?", True),  # no pronoun, no connective: still read with the conversation
    ("and for HVX 4.0?", False),  # names a version the page it follows up on does not have
    ("und bei HVX 4.1?", True),
])
def test_every_follow_up_is_read_with_the_pages_shown_before(query, leans_on_the_page, lemmatizer):
    resolved, warnings = resolve(query, [TURN], detect_language(query), lemmatizer, None)
    assert resolved.follow_up and not warnings and resolved.text == query
    assert resolved.prior_urls == ({REPORT: 1.0} if leans_on_the_page else {})


@pytest.mark.parametrize("query, after_the_previous", [
    ("Deadline?", True),  # one word of its own: about the conversation's subject
    ("Version nos.?", True),
    ("Which ticket category covers a TLS certificate?", False),  # says what it is about: a new subject
])
def test_the_embedder_reads_a_short_follow_up_after_the_previous_question_and_a_full_one_alone(
        query, after_the_previous, lemmatizer):
    resolved = conversation_reading(query, [TURN], "en", lemmatizer)
    assert resolved.dense_text == (f"{TURN.query} {query}" if after_the_previous else query)


def test_the_conversation_reading_carries_earlier_terms_decayed_by_distance(lemmatizer):
    history = [Turn("Where is the TideSense harbour buoy?", [{"url": "buoy", "title": "Buoys"}]), TURN]
    resolved = conversation_reading("Deadline?", history, "en", lemmatizer)
    assert resolved.text == "Deadline?"
    assert resolved.carried["uefi"] == resolved.carried["boot"] == 1.0
    assert resolved.carried["buoy"] == TERM_DECAY
    assert resolved.prior_urls == {REPORT: 1.0, "buoy": TERM_DECAY}
    assert resolved.dense_text == f"{TURN.query} Deadline?"


def test_terms_of_turns_long_ago_fade_out(lemmatizer):
    history = [Turn("Where is the TideSense harbour buoy?"), *[Turn(f"Question {n} about boot") for n in range(5)]]
    assert "buoy" not in carried_terms(history, set(), lemmatizer)


def test_carried_terms_reach_pages_in_another_language_through_their_translations():
    carried = carried_across({"rechner": 1.0, "ausfall": 0.5}, {"en": {"ausfall": ["outage", "power failure"]}}, 0.8)
    assert carried == {"rechner": 1.0, "ausfall": 0.5, "outage": 0.4, "power": 0.4, "failure": 0.4}


def test_carried_terms_join_the_questions_bm25_at_their_shares():
    own = {"bool": {"must": {"match": {"text": "deadline"}}, "filter": [{"term": {"acl": "x"}}]}}
    carried = {"reminder": 1.0, "certificate": 0.5, "ota": 0.5}
    body = carried_bm25(own, carried, 0.6, ["title^2", "text"], explain=True)["bool"]
    assert body["should"][0] == {"match": {"text": "deadline"}} and body["filter"] == own["bool"]["filter"]
    fields = {"fields": ["title^2", "text"], "type": "most_fields"}
    assert body["should"][1:] == [{"multi_match": {"query": "reminder", **fields, "boost": 0.6, "_name": "carried_0"}},
                                  {"multi_match": {"query": "certificate ota", **fields, "boost": 0.3,
                                                   "_name": "carried_1"}}]  # named: --misses tells them apart
    assert body["minimum_should_match"] == 1  # a page holding only the carried subject is still found
    unexplained = carried_bm25(own, carried, 0.6, ["title^2", "text"])["bool"]["should"][1:]
    assert [{k: v for k, v in c["multi_match"].items() if k != "_name"} for c in body["should"][1:]] == \
        [c["multi_match"] for c in unexplained]  # names only to explain: matching them costs every search


def test_a_shown_page_keeps_its_prior_as_far_as_the_questions_own_words_find_it():
    shown = {"report": 0.5, "runbook": 0.25, "postmortem": 0.125}
    by_page = [{"key": "report", "best": {"value": 8.0}}, {"key": "runbook", "best": {"value": 2.0}}]
    assert shown_weights(shown, 4.0, by_page) == {"report": 0.5, "runbook": 0.125}  # postmortem: not found
    assert shown_weights(shown, None, []) == {}  # the question's own words find nothing


def test_own_word_searches_ask_for_the_best_match_and_each_shown_pages_best():
    own = {"match": {"text": "resturlaub"}}
    best, shown = own_word_searches(own, {"a": 0.5, "b": 0.25})
    assert best["query"] == own and best["size"] == 1
    assert shown["query"]["bool"] == {"must": own, "filter": {"terms": {"url": ["a", "b"]}}}
    assert shown["aggs"]["pages"]["terms"] == {"field": "url", "size": 2}


def test_without_history_the_question_stands_as_asked(lemmatizer):
    assert resolve("and it?", [], "en", lemmatizer, None) == (ResolvedQuery.standalone("and it?"), [])


class _Rewriter:
    def __init__(self, answer: str | None):
        self.answer = answer

    def run(self, query: str, history: list[tuple[str, list[str]]]) -> str:
        if self.answer is None:
            raise LLMError("endpoint down")
        return self.answer


def test_an_llm_rewrite_replaces_the_rules(lemmatizer):
    resolved, warnings = resolve("and how do I fix it?", [TURN], "en", lemmatizer, _Rewriter("How to fix UEFI boot?"))
    assert resolved.text == resolved.dense_text == "How to fix UEFI boot?"
    assert resolved.follow_up and not resolved.carried and not warnings


def test_a_failing_llm_falls_back_to_the_conversation_reading_with_a_warning(lemmatizer):
    resolved, warnings = resolve("and how do I fix it?", [TURN], "en", lemmatizer, _Rewriter(None))
    assert resolved == conversation_reading("and how do I fix it?", [TURN], "en", lemmatizer)
    assert len(warnings) == 1 and "endpoint down" in warnings[0]


def test_a_follow_up_leans_on_the_page_the_user_opened_rather_than_the_first_result(lemmatizer):
    shown = [{"url": "https://wiki/first", "title": "Travel Policy"},
             {"url": "https://wiki/second", "title": "Travel Booking Tool"}]
    unopened = conversation_reading("How do I book it?", [Turn("travel", shown)], "en", lemmatizer)
    opened = conversation_reading("How do I book it?", [Turn("travel", shown, ["https://wiki/second"])], "en",
                                  lemmatizer)
    assert unopened.prior_urls == {"https://wiki/first": 1.0}
    assert opened.prior_urls == {"https://wiki/second": 1.0}


def written_by_the_corpus(*words: str):
    """Which of some words a corpus that writes ``words`` holds, and every word it was asked about."""
    asked: list[str] = []

    def holds(terms: list[str]) -> set[str]:
        asked.extend(terms)
        return set(terms) & set(words)
    return holds, asked


@pytest.mark.parametrize("own", [["xyzzyplugh"], ["quaymaster"], ["ts-e9999"]])
def test_a_follow_up_of_no_language_s_words_the_corpus_never_writes_matches_nothing(own):
    holds, asked = written_by_the_corpus("lease", "bicycle")
    assert off_the_map(own, holds) and asked == own


@pytest.mark.parametrize("own", [
    ["tschechien"],  # a German word the corpus lacks: the topic asked about in other words
    ["fly"],
    ["edi-bug"],  # a code of words: "bug" is one
    ["2031"],  # a number
    ["4.3"],
    ["xyzzyplugh", "car"],  # one word of a language is enough
    [],  # no words of its own ("and?"): the conversation says what it is about
])
def test_a_follow_up_with_a_word_of_a_language_keeps_its_conversation_without_asking_the_corpus(own):
    holds, asked = written_by_the_corpus()
    assert not off_the_map(own, holds) and asked == []


def test_a_name_the_corpus_writes_keeps_its_conversation():
    holds, _ = written_by_the_corpus("quaymaster")
    assert not off_the_map(["quaymaster"], holds)



def test_a_word_the_translation_list_knows_is_a_word_of_a_language(tmp_path):
    """"Czechia" is in no language's word list, but a German-English list has it, as it has the compound
    "Lerntag" (lernen, Tag)."""
    ding = tmp_path / "de-en"
    ding.write_text("Tschechien {n} :: Czechia\nlernen {vt} :: to learn\nTag {m} :: day\n", encoding="utf-8")
    lexicon = Lexicon.from_ding(ding)
    holds, asked = written_by_the_corpus()
    assert off_the_map(["czechia"], holds) and asked == ["czechia"]  # by the word lists alone: no word
    for own in (["czechia"], ["lerntag"]):
        assert not off_the_map(own, holds, lambda word: known_word(word) or lexicon.knows(word))
    assert off_the_map(["xyzzyplugh"], holds, lambda word: known_word(word) or lexicon.knows(word))
