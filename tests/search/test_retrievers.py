"""The retrievers' query bodies on plain data: filters, fields, readings, k-NN weights. No services."""
from __future__ import annotations

from core.settings import SearchConfig
from search.query import Query, ResolvedQuery
from search.retrievers import (CROSS_LINGUAL_LIST, KNN_OVERSAMPLE, acl_filter, bm25_query,
                               cross_lingual_retriever, dense_texts, knn_retrievers, request_filters, text_fields)
from text.lemmas import Lemmatizer


def test_request_filters():
    clauses = request_filters(["hr"], {"space": "OPS", "kind": ["table", "list"], "date_from": "2025-01-01"})
    assert clauses[0] == acl_filter(["hr"])
    assert {"terms": {"space": ["OPS"]}} in clauses and {"terms": {"kind": ["table", "list"]}} in clauses
    assert {"range": {"updated": {"gte": "2025-01-01"}}} in clauses


def test_text_fields_carry_their_boosts_and_the_languages_analyzed_copies():
    assert text_fields("fr") == ["title^2", "heading_path^1.5", "text^1.5", "context", "keywords^1.5"]
    assert text_fields("de")[-3:] == ["context.de", "title.de^2", "text.de^1.5"]


def _query(text: str, lang: str, carried=(), follow_up=False, translated=None, lemmas=()) -> Query:
    return Query(text, lang, ResolvedQuery(text, list(carried), text, [], follow_up), list(lemmas), translated or {})


def test_bm25_a_translation_is_a_second_reading():
    cfg = SearchConfig()
    query = _query("Wie viele Lerntage gibt es?", "de", translated={"en": {"lerntag": ["learn", "day"]}},
                   lemmas=["lerntag", "geben"])
    readings = bm25_query(query, [], cfg, Lemmatizer())["bool"]["must"]["dis_max"]["queries"]
    assert readings[0]["bool"]["should"][0]["multi_match"]["query"] == "Lerntage"  # content words only
    assert [m["multi_match"]["query"] for m in readings[1]["bool"]["should"]] == ["learn day", "geben"]


def test_bm25_only_the_translated_words_of_a_reading_pay_the_translation_boost():
    """A German question naming an English document: its English words are the same in both readings, so a
    page they find in the translation is not put behind a page they find in the question as written."""
    cfg = SearchConfig()
    query = _query("Wer genehmigt Ausnahmen der Security Guidelines?", "de",
                   translated={"en": {"ausnahme": ["exception"], "security": ["security"]}},
                   lemmas=["genehmigen", "ausnahme", "security"])
    translated = bm25_query(query, [], cfg, Lemmatizer())["bool"]["must"]["dis_max"]["queries"][1]["bool"]
    assert "boost" not in translated
    assert [(m["multi_match"]["query"], m["multi_match"].get("boost", 1.0)) for m in translated["should"]] == [
        ("genehmigen", 1.0), ("exception", cfg.translation_boost), ("security", 1.0)]
    assert cfg.translation_boost < 1.0


def test_bm25_an_english_question_leaves_out_the_words_its_analyzer_drops():
    query = _query("What is the rollout window of the HVX-4.1 gateways?", "en", lemmas=["rollout", "window"])
    reading = bm25_query(query, [], SearchConfig(), Lemmatizer())["bool"]["must"]["dis_max"]["queries"][0]
    assert reading["bool"]["should"][0]["multi_match"]["query"] == "What rollout window HVX-4.1 gateways?"


def test_bm25_readings_are_named_only_to_explain_a_search():
    query = _query("Wie viele Lerntage gibt es?", "de", translated={"en": {"lerntag": ["learn", "day"]}},
                   lemmas=["lerntag", "geben"])
    explained = bm25_query(query, [], SearchConfig(), Lemmatizer(), explain=True)["bool"]["must"]["dis_max"]
    assert [r["bool"]["_name"] for r in explained["queries"]] == ["reading_own_words", "reading_translated_en"]
    plain = bm25_query(query, [], SearchConfig(), Lemmatizer())["bool"]["must"]["dis_max"]
    assert not any("_name" in r["bool"] for r in plain["queries"])


def test_knn_filtered_after_the_search_asks_more_and_keeps_the_filtered_search_to_fall_back_on():
    acl = [acl_filter([])]
    after, = knn_retrievers([[0.5]], False, ("context",), 10, acl, SearchConfig(), filter_after=True)
    assert after.body == {"bool": {"must": {"knn": {"vec_context": {"vector": [0.5], "k": 10 * KNN_OVERSAMPLE}}},
                          "filter": acl}}
    assert after.fallback == {"knn": {"vec_context": {"vector": [0.5], "k": 10, "filter": {"bool": {"filter": acl}}}}}
    inside, = knn_retrievers([[0.5]], False, ("context",), 10, acl, SearchConfig())
    assert inside.body == after.fallback and inside.fallback is None


def test_cross_lingual_list_searches_the_multilingual_view_and_an_index_without_it_matches_nothing():
    acl = [acl_filter([])]
    after = cross_lingual_retriever([0.5], 10, acl, 0.3, filter_after=True)
    assert after.body == {"bool": {"must": {"knn": {"vec_multilingual": {
        "vector": [0.5], "k": 10 * KNN_OVERSAMPLE, "ignore_unmapped": True}}}, "filter": acl}}
    assert after.fallback == {"knn": {"vec_multilingual": {"vector": [0.5], "k": 10, "ignore_unmapped": True,
                                                           "filter": {"bool": {"filter": acl}}}}}
    assert (after.weight, after.lexical, after.name) == (0.3, False, CROSS_LINGUAL_LIST)
    inside = cross_lingual_retriever([0.5], 10, acl, 0.3)
    assert inside.body == after.fallback and inside.fallback is None


def test_dense_side_reads_a_foreign_question_as_written_and_translated_each_at_a_share():
    """The two readings of a German question weigh together what an English question's one list does."""
    cfg = SearchConfig()
    query = _query("Lerntage?", "de", translated={"en": {"lerntag": ["learn", "day"]}})
    assert dense_texts(query, "en") == ["Lerntage?", "learn day"]
    retrievers = knn_retrievers([[0.0], [1.0]], True, ("context",), 10, [], cfg)
    assert [r.weight for r in retrievers] == [cfg.dense_weight * cfg.foreign_dense_share] * 2
    assert [r.weight for r in knn_retrievers([[0.0]], False, ("context",), 10, [], cfg)] == [cfg.dense_weight]
    assert not any(r.lexical for r in retrievers)
