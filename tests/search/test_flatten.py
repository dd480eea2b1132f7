"""BM25 bodies written as flat disjunctions of term queries, on plain data. No services."""
from __future__ import annotations

from search.flatten import flat_body, texts_to_analyze

ANALYSIS = {
    ("title", "Release tests test"): {"release": 1, "tests": 1, "test": 1},
    ("title.en", "Release tests test"): {"releas": 1, "test": 2},
    ("lemmas", "release test"): {"release": 1, "test": 1},
    ("title", "the"): {"the": 1},
    ("title.en", "the"): {},
}


def _terms(node: dict) -> dict[tuple[str, str], float]:
    return {(field, spec["value"]): spec["boost"] for clause in node["bool"]["should"]
            for field, spec in clause["term"].items()}


def test_a_multi_match_becomes_term_queries_at_its_fields_boosts_times_each_tokens_count():
    body = {"multi_match": {"query": "Release tests test", "fields": ["title^2", "title.en"], "type": "most_fields"}}
    assert _terms(flat_body(body, ANALYSIS)) == {
        ("title", "release"): 2.0, ("title", "tests"): 2.0, ("title", "test"): 2.0,
        ("title.en", "releas"): 1.0, ("title.en", "test"): 2.0}


def test_nested_disjunctions_merge_into_one_with_their_boosts_multiplied():
    carried = {"bool": {"boost": 0.5, "should": [
        {"multi_match": {"query": "Release tests test", "fields": ["title.en^2"], "type": "most_fields"}},
        {"match": {"lemmas": {"query": "release test", "boost": 1.5}}}]}}
    body = {"bool": {"should": [carried], "minimum_should_match": 1, "filter": [{"term": {"lang": "en"}}]}}
    flat = flat_body(body, ANALYSIS)
    assert _terms(flat) == {("title.en", "releas"): 1.0, ("title.en", "test"): 2.0,
                            ("lemmas", "release"): 0.75, ("lemmas", "test"): 0.75}
    assert flat["bool"]["filter"] == [{"term": {"lang": "en"}}]


def test_a_reading_among_alternatives_keeps_its_own_boost_around_its_flat_clauses():
    reading = {"bool": {"boost": 0.75, "should": [{"match": {"lemmas": "release test"}}]}}
    flat = flat_body({"dis_max": {"queries": [reading]}}, ANALYSIS)["dis_max"]["queries"][0]
    assert flat["bool"]["boost"] == 0.75
    assert _terms(flat) == {("lemmas", "release"): 1.0, ("lemmas", "test"): 1.0}


def test_a_named_query_keeps_its_name_and_shape_and_is_flattened_inside():
    named = {"bool": {"_name": "reading_own_words", "should": [
        {"match": {"lemmas": "release test"}}]}}
    flat = flat_body({"bool": {"should": [named, {"match": {"title": "the"}}], "minimum_should_match": 1}}, ANALYSIS)
    kept, term = flat["bool"]["should"]
    assert kept["bool"]["_name"] == "reading_own_words"
    assert _terms(kept) == {("lemmas", "release"): 1.0, ("lemmas", "test"): 1.0}
    assert term == {"term": {"title": {"value": "the", "boost": 1.0}}}


def test_a_text_that_analyzes_to_nothing_matches_nothing_rather_than_everything():
    assert flat_body({"match": {"title.en": "the"}}, ANALYSIS) == {"match_none": {}}
    body = {"bool": {"should": [{"multi_match": {"query": "the", "fields": ["title.en"], "type": "most_fields"}}]}}
    assert flat_body(body, ANALYSIS) == {"match_none": {}}


def test_clauses_of_which_two_must_match_stay_apart():
    body = {"bool": {"should": [{"match": {"lemmas": "release test"}}, {"match": {"title": "the"}}],
                     "minimum_should_match": 2}}
    clauses = flat_body(body, ANALYSIS)["bool"]["should"]
    assert len(clauses) == 2 and all("bool" in c for c in clauses)


def test_other_queries_pass_through_and_every_searched_text_is_listed():
    body = {"bool": {"must": {"match_phrase": {"title": "release test"}}, "should": [
        {"multi_match": {"query": "Release tests test", "fields": ["title^2", "title.en"], "type": "most_fields"}},
        {"match": {"lemmas": {"query": "release test", "boost": 1.5}}}]}}
    assert flat_body(body, ANALYSIS)["bool"]["must"] == body["bool"]["must"]
    assert texts_to_analyze(body) == [("title", "Release tests test"), ("title.en", "Release tests test"),
                                      ("lemmas", "release test")]
