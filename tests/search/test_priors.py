"""The priors on plain fused lists: template twins, index-term anchors, acronym definitions, the follow-up page.
No services."""
from __future__ import annotations

import pytest

from core.settings import SearchConfig
from search.priors import (acronym_share, apply_priors, asked_for, carried_identifiers, definition_boost,
                           follow_up_prior, names_a_twin, term_anchor_boost, twin_penalty)
from search.query import Query, ResolvedQuery, content_terms, identifiers
from text.lemmas import Lemmatizer


@pytest.mark.parametrize("query, title, twin", [
    ("Why was the E5 not tested with the final build of HVX 4.0?", "HVX 4.1.2 Release Test Report", True),
    ("Why was the E5 not tested with the final build of HVX 4.0?", "HVX 4.0 Release Test Report", False),
    ("Why was the E5 not tested with the final build of HVX 4.0?", "HVX Known Issues", False),  # names none
    ("Who was absent on 5 February?", "2025-01-29 Hypervisor Weekly Sync", True),
    ("Who was absent on 5 February?", "2025-02-05 Hypervisor Weekly Sync", False),
    ("To which date was the HVX 4.2 code freeze moved?", "2025-01-29 Hypervisor Weekly Sync", False),  # a date
    ("Salary bands for 2025", "Gehaltsrunde 2025 – Ablauf", False),  # a bare number is no identifier
])
def test_a_page_titled_with_another_version_or_date_is_a_twin(query, title, twin):
    asked = identifiers(query, "en", Lemmatizer())
    assert names_a_twin(asked, identifiers(title, "", None)) is twin


def _item(url: str, title: str, score: float, term: str = "") -> dict:
    return {"_id": url + title, "_score_fused": score,
            "_source": {"url": url, "title": title, **({"term": term} if term else {})}}


def test_twin_penalty_sets_back_every_evidence_of_the_twin_page():
    fused = [_item("a", "HVX 4.1.2 Release Test Report", 1.0), _item("a", "HVX 4.1.2 Release Test Report", 0.5),
             _item("b", "HVX 4.0 Release Test Report", 0.9)]
    twin_penalty(fused, {"version": {"4.0"}}, 0.25)
    assert [it["_score_fused"] for it in fused] == [0.75, 0.25, 0.9]


def test_no_twin_penalty_when_no_candidate_is_the_page_asked_for():
    """"Was build 4.1.1 tested?" when 4.1.1 was withdrawn and has no report: the 4.1.2 report that says so is
    no twin of a page that does not exist, and keeps its score; once a 4.1.1 report is a candidate, it is."""
    fused = [_item("a", "HVX 4.1.2 Release Test Report", 1.0), _item("b", "HVX Known Issues", 0.9)]
    twin_penalty(fused, {"version": {"4.1.1"}}, 0.25)
    assert [it["_score_fused"] for it in fused] == [1.0, 0.9]
    fused.append(_item("c", "HVX 4.1.1 Release Test Report", 0.2))
    twin_penalty(fused, {"version": {"4.1.1"}}, 0.25)
    assert [it["_score_fused"] for it in fused] == [0.75, 0.9, 0.2]


def test_each_kind_needs_its_own_page_asked_for():
    """A query naming a version and a date: the date's page is among the candidates, the version's is not,
    so only pages titled with another date are twins."""
    fused = [_item("a", "2025-02-26 Hypervisor Weekly Sync", 1.0), _item("b", "2025-02-12 Hypervisor Weekly Sync", 0.9),
             _item("c", "HVX 4.2 Release Test Report", 0.8)]
    twin_penalty(fused, {"version": {"1.2"}, "date": {"2025-02-26"}}, 0.25)
    assert [it["_score_fused"] for it in fused] == [1.0, 0.65, 0.8]
    assert asked_for({"version": {"1.2"}, "date": {"2025-02-26"}},
                     [identifiers(it["_source"]["title"], "", None) for it in fused]) == {"date": {"2025-02-26"}}


def test_no_twin_penalty_when_the_query_names_nothing():
    fused = [_item("a", "HVX 4.1.2 Release Test Report", 1.0)]
    twin_penalty(fused, {}, 0.25)
    assert fused[0]["_score_fused"] == 1.0


def test_an_anchor_whose_term_the_query_names_is_lifted_as_a_whole_word():
    fused = [_item("a", "Glossary", 0.5, term="Set"), _item("b", "Index", 0.5, term="Record")]
    term_anchor_boost(fused, "What is a record set in the theory?", 1.0)
    assert [it["_score_fused"] for it in fused] == [1.5, 1.5]
    term_anchor_boost(fused, "What is a settlement?", 1.0)  # "set" only inside a word
    assert [it["_score_fused"] for it in fused] == [1.5, 1.5]


def test_the_evidence_defining_an_acronym_of_the_question_is_lifted_once_for_each():
    glossary = {**_item("g", "Acronyms", 0.5), "_parts": {"bm25": 0.5}}
    glossary["_source"]["defines"] = ["PCR = Platform Configuration Register", "IC = Incident Commander"]
    prose = _item("p", "Boot Chain", 0.6)  # writes "PCR" without defining it
    definition_boost([glossary, prose], {"PCR", "TPM"}, 0.25)
    assert glossary["_score_fused"] == 0.75 and glossary["_parts"]["definition_bonus"] == 0.25
    assert prose["_score_fused"] == 0.6
    definition_boost([glossary], {"PCR", "IC"}, 0.25)
    assert glossary["_score_fused"] == 1.25
    definition_boost([glossary], {"pcr"}, 0.25)  # an acronym is matched as written, as it is defined
    assert glossary["_score_fused"] == 1.25


def test_a_question_that_is_mostly_an_acronym_lifts_its_definition_more_than_one_that_uses_it_in_passing():
    lemmatizer = Lemmatizer()
    defines = ["PCR = Platform Configuration Register"]

    def lift(asked: str, carried: dict[str, float]) -> float:
        resolved = ResolvedQuery(asked, carried, asked, {}, bool(carried))
        query = Query(asked, "en", resolved, content_terms(asked, "en", lemmatizer), {})
        glossary = _item("g", "Acronyms", 0.0)
        glossary["_source"]["defines"] = defines
        apply_priors([glossary], query, lemmatizer, 1.0, SearchConfig())
        return glossary["_score_fused"]

    assert acronym_share(Query("PCR?", "en", ResolvedQuery("PCR?", {"tpm": 1.0}, "", {}, True), ["pcr"], {})) == 0.5
    meaning = lift("What does PCR stand for?", {})
    in_passing = lift("Which PCR does the boot loader of the edge gateway extend?", {})
    after_the_boot_chain = lift("PCR?", {"boot": 1.0, "loader": 1.0, "measure": 0.5})  # "the PCR of that"
    assert meaning > 4 * in_passing > 0 and meaning >= 4 * after_the_boot_chain > 0


def test_the_follow_up_page_gets_its_prior():
    fused = [_item("a", "A", 0.5), _item("b", "B", 0.5)]
    follow_up_prior(fused, {"b": 1.0}, 0.2)
    assert [it["_score_fused"] for it in fused] == [0.5, 0.7]


def test_apply_priors_reorders_in_rank_one_units():
    query = Query("and for HVX 4.0?", "en", ResolvedQuery("and for HVX 4.0?", {}, "", {"b": 1.0}, True), [], {})
    fused = [_item("a", "HVX 4.1 Release Test Report", 1.0), _item("b", "HVX 4.0 Release Test Report", 0.9)]
    cfg = SearchConfig(prior_weight=1.0)  # a whole rank-one unit for the page shown for the turn before
    ranked = apply_priors(fused, query, Lemmatizer(), 0.5, cfg)
    assert [it["_source"]["url"] for it in ranked] == ["b", "a"]
    assert [it["_score_fused"] for it in ranked] == [0.9 + 0.5, 1.0 - 0.25]


def test_each_prior_is_booked_to_its_name_where_the_score_keeps_its_parts():
    query = Query("and for HVX 4.0?", "en", ResolvedQuery("and for HVX 4.0?", {}, "", {"b": 1.0}, True), [], {})
    kept = {**_item("a", "HVX 4.1 Release Test Report", 1.0), "_parts": {"bm25": 1.0}}
    shown = {**_item("b", "HVX 4.0 Release Test Report", 0.9), "_parts": {"bm25": 0.6, "dense_text": 0.3}}
    plain = _item("c", "HVX 4.1 Notes", 0.8)  # a search not asked to explain keeps no parts
    ranked = apply_priors([kept, shown, plain], query, Lemmatizer(), 0.5, SearchConfig())
    assert kept["_parts"] == {"bm25": 1.0, "twin_penalty": -0.25}
    assert shown["_parts"] == {"bm25": 0.6, "dense_text": 0.3, "shown_page_prior": 0.25}
    assert "_parts" not in plain and plain["_score_fused"] == 0.8 - 0.25
    for item in (kept, shown):
        assert sum(item["_parts"].values()) == pytest.approx(item["_score_fused"])
    assert ranked[0] is shown


def test_the_conversations_version_sets_back_twins_of_a_follow_up_that_names_none():
    """"BIOS on the IPC-520?" after turns about HVX 4.2: the 4.2 report's twins lose the penalty at the share
    the carried version has; a follow-up naming its own version is judged by that one alone."""
    carried = {"4.1": 1.0, "bios": 1.0, "4.2": 0.5, "2025-02-05": 0.25}
    assert carried_identifiers(carried, {}, "en", Lemmatizer()) == [
        ({"version": {"4.1"}}, 1.0), ({"date": {"2025-02-05", "--02-05"}}, 0.25)]  # each kind its latest
    assert carried_identifiers(carried, {"version": {"4.0"}}, "en", Lemmatizer()) == [
        ({"date": {"2025-02-05", "--02-05"}}, 0.25)]

    def ranked(asked: str) -> list[str]:
        query = Query(asked, "en", ResolvedQuery(asked, {"4.2": 0.5}, "", {}, True), [], {})
        fused = [_item("a", "HVX 4.1.2 Release Test Report", 1.0), _item("b", "HVX 4.2 Release Test Report", 0.9)]
        return [it["_source"]["url"] for it in apply_priors(fused, query, Lemmatizer(), 0.5, SearchConfig())]

    assert ranked("BIOS on the IPC-520?") == ["b", "a"]  # 1.0 - 0.5 x 0.5 x 0.5 = 0.875 < 0.9
    assert ranked("BIOS on the IPC-520 in 4.1.2?") == ["a", "b"]
