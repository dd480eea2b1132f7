"""Follow-up resolution on plain data: no services, the real lemmatizer."""
from __future__ import annotations

import pytest

from core.llm import LLMError
from search.conversation import resolve, resolve_follow_up
from search.schema import Turn
from text.detect import detect_language
from text.lemmas import Lemmatizer

REPORT = "https://wiki.example.com/spaces/ENG/pages/1/HVX+4.1+Release+Test+Report"
TURN = Turn("Which machine failed UEFI boot in the HVX 4.1 release test?",
            [{"url": REPORT, "title": "HVX 4.1 Release Test Report"}])


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


@pytest.mark.parametrize("query, leans_on_the_page", [
    ("and what about the TPM?", True),
    ("and for HVX 4.0?", False),  # names a version the page it follows up on does not have
    ("und bei HVX 4.1?", True),
])
def test_a_follow_up_that_names_another_version_moves_on_from_the_last_page(query, leans_on_the_page, lemmatizer):
    resolved = resolve_follow_up(query, [TURN], detect_language(query), lemmatizer)
    assert resolved.follow_up
    assert resolved.prior_urls == ([REPORT] if leans_on_the_page else [])


def test_a_follow_up_carries_the_earlier_terms_and_shows_the_embedder_both_questions(lemmatizer):
    resolved = resolve_follow_up("and how do I fix it?", [TURN], "en", lemmatizer)
    assert resolved.text == "and how do I fix it?"
    assert {"uefi", "boot"} <= set(resolved.carried)
    assert resolved.dense_text == f"{TURN.query} and how do I fix it?"


def test_a_self_contained_question_keeps_the_earlier_terms_as_a_hint_only(lemmatizer):
    query = "Which TideSense buoy models are in operation at the harbour?"
    resolved = resolve_follow_up(query, [TURN], "en", lemmatizer)
    assert not resolved.follow_up and resolved.carried and not resolved.prior_urls
    assert resolved.dense_text == query


def test_without_history_the_question_stands_as_asked(lemmatizer):
    resolved = resolve_follow_up("and it?", [], "en", lemmatizer)
    assert (resolved.text, resolved.carried, resolved.prior_urls, resolved.follow_up) == ("and it?", [], [], False)


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


def test_a_failing_llm_falls_back_to_the_rules_with_a_warning(lemmatizer):
    resolved, warnings = resolve("and how do I fix it?", [TURN], "en", lemmatizer, _Rewriter(None))
    assert resolved == resolve_follow_up("and how do I fix it?", [TURN], "en", lemmatizer)
    assert len(warnings) == 1 and "endpoint down" in warnings[0]
