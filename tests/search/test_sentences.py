"""The sentence stage's arithmetic (pure): which questions it reads, how closeness becomes a page's gain."""
from __future__ import annotations

import pytest

from search.grouping import Group
from search.sentences import (SENTENCE_PART, applies, closeness, gains, sentence_query, unit_closeness, unit_query,
                              with_gains)


def test_only_a_question_read_on_its_own_in_the_models_language_is_read():
    assert applies(follow_up=False, lang="en", model_language="en")
    assert not applies(follow_up=True, lang="en", model_language="en")  # the conversation's stages lead it
    assert not applies(follow_up=False, lang="de", model_language="en")  # the model reads English only
    assert applies(follow_up=False, lang="de", model_language="")  # a model of every language


def test_the_query_compares_the_pages_sentences_alone_and_keeps_the_callers_filters():
    acl = {"terms": {"acl": ["hr-team"]}}
    body = sentence_query([0.1, 0.2], ["https://a", "https://b"], [acl])
    knn = body["query"]["bool"]["must"]["nested"]["query"]["knn"]["sentences.vec"]
    assert knn["filter"] == {"terms": {"url": ["https://a", "https://b"]}}
    assert body["query"]["bool"]["filter"] == [acl]
    assert body["aggs"]["pages"]["terms"]["size"] == 2


def test_closeness_is_scaled_over_the_pages_compared():
    answer = {"aggregations": {"pages": {"buckets": [{"key": "a", "best": {"value": 0.9}},
                                                     {"key": "b", "best": {"value": 0.8}},
                                                     {"key": "c", "best": {"value": 0.7}}]}}}
    assert gains(closeness(answer)) == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.0})
    assert gains({"a": 0.8, "b": 0.8}) == {}  # all as close: nothing to tell them apart
    assert gains({}) == {}


def _group(url: str, scores: list[float]) -> Group:
    items = [{"_source": {"url": url}, "_score_fused": s, "_parts": {"bm25": s}} for s in scores]
    return Group(items, sum(scores))


def test_a_pages_gain_goes_to_its_score_and_its_best_evidence_so_its_parts_add_up():
    groups = [_group("a", [0.5, 0.2]), _group("b", [0.9])]
    lifted = with_gains(groups, {"a": 1.0, "b": 0.25}, 0.4, explain=True)
    assert [g.score for g in lifted] == pytest.approx([0.7 + 0.4, 0.9 + 0.1])
    assert lifted[0].items[0]["_parts"] == pytest.approx({"bm25": 0.5, SENTENCE_PART: 0.4})
    assert lifted[0].items[0]["_score_fused"] == pytest.approx(0.9)
    assert lifted[0].items[1] is groups[0].items[1]
    assert groups[0].score == 0.7 and SENTENCE_PART not in groups[0].items[0]["_parts"]  # the input is left as it was
    assert with_gains(groups, {}, 0.4, explain=True) == groups


def test_the_card_reads_every_sentence_of_the_evidence_asked_without_the_title_before_it():
    body = unit_query([0.1, 0.2], ["ev-1", "ev-2"])
    nested = body["query"]["bool"]["must"]["nested"]
    assert nested["query"]["knn"]["sentences.vec"]["expand_nested_docs"]  # every sentence, not only the closest
    assert body["query"]["bool"]["filter"] == [{"ids": {"values": ["ev-1", "ev-2"]}}]
    inner = [{"_source": {"text": "Leave policy: Leave lapses on 31 March."}, "_score": 0.9},
             {"_source": {"text": "Leave policy: Ask HR."}, "_score": 0.7}]
    response = {"hits": {"hits": [{"_id": "ev-1", "inner_hits": {"sentences": {"hits": {"hits": inner}}}}]}}
    assert unit_closeness(response, {"ev-1": "Leave policy"}) == {
        "ev-1": {"Leave lapses on 31 March.": 0.9, "Ask HR.": 0.7}}
