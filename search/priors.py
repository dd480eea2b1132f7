"""Priors: what the fused scores learn beyond the retrievers, in rank-one units of the fusion.

The pages shown for earlier turns get a bonus in the conversation's reading; evidence of a template twin
(a page whose title names another version, date or code than the query, when a page naming the query's is
among the candidates) is set back; an index-term anchor whose term the query names is lifted, and so, by how
much of the question an acronym is, the evidence defining it. The weights are ``prior_weight``,
``twin_penalty`` and ``term_weight`` of ``SearchConfig``.
"""
from __future__ import annotations

import re
from typing import Callable, Collection

from core.settings import SearchConfig
from search.fusion import add_part
from search.query import Query, identifiers
from text.acronyms import defined_acronym, question_acronyms
from text.lemmas import Lemmatizer

# The definition of an acronym is lifted by the acronym's share of the question's terms squared: "What does PCR
# stand for?" (a half) asks what it means, "Which machines of the HVX compatibility matrix have an fTPM?" (a
# fifth) only uses it. At the share itself, questions that write an acronym with its long form among six or seven
# words lost their page to the glossary (docs/ranking.md, "Priors"; CHANGELOG.md, 2026-12-01).
DEFINITION_SHARE_POWER = 2


def names_a_twin(query_ids: dict[str, set[str]], title_ids: dict[str, set[str]]) -> bool:
    """A title that names a version (or date, or code) where the query names another one of that kind."""
    return any(kind in title_ids and not ids & title_ids[kind] for kind, ids in query_ids.items())


def _shift(fused: list[dict], bonus: Callable[[dict], float], name: str) -> None:
    """Add each evidence's ``bonus`` (negative: a penalty) to its fused score, booked to ``name`` when the
    evidence keeps its score's parts (``explain``)."""
    for item in fused:
        amount = bonus(item["_source"])
        if amount:
            item["_score_fused"] += amount
            if "_parts" in item:
                add_part(item, name, amount)


def follow_up_prior(fused: list[dict], prior_urls: dict[str, float], bonus: float) -> None:
    """A page shown first for an earlier turn gets its share of ``bonus``."""
    _shift(fused, lambda src: bonus * prior_urls.get(src["url"], 0.0), "shown_page_prior")


def twin_penalty(fused: list[dict], query_ids: dict[str, set[str]], penalty: float) -> None:
    """Pages written from one template differ in the version or date of their titles: one that names others
    than the query does is a twin of the page asked for, and its evidence loses ``penalty``.

    Only of a kind whose page asked for is among the candidates (``asked_for``): a version that no title
    names (a withdrawn build with no report of its own, another product's "TPM 1.2") singles out no page, so
    the pages naming other versions are no twins of it and keep their score: a question about the withdrawn
    4.1.1 build is answered in the 4.1.2 report (docs/ranking.md, "Priors")."""
    if not query_ids:
        return
    titles: dict[str, dict[str, set[str]]] = {}  # by title: the fused list holds many evidence of few pages
    for item in fused:
        title = item["_source"].get("title", "")
        if title not in titles:
            titles[title] = identifiers(title, "", None)
    asked = asked_for(query_ids, titles.values())
    if not asked:
        return
    twins = {title: names_a_twin(asked, found) for title, found in titles.items()}
    _shift(fused, lambda src: -penalty if twins[src.get("title", "")] else 0.0, "twin_penalty")


def asked_for(query_ids: dict[str, set[str]], titles: Collection[dict[str, set[str]]]) -> dict[str, set[str]]:
    """The query's identifiers of the kinds some candidate's title names one of (the candidates' titles'
    ``identifiers``): the kinds whose page asked for was found. The candidates are the evidence the caller
    may read, so a page they may not read decides nothing."""
    return {kind: ids for kind, ids in query_ids.items() if any(ids & found.get(kind, set()) for found in titles)}


def term_anchor_boost(fused: list[dict], asked: str, bonus: float) -> None:
    """Index-aware grounding: a query that names an indexed term gets the term's anchor first."""
    asked = asked.lower()

    def named(src: dict) -> float:
        term = src.get("term", "")
        return bonus if term and re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", asked) else 0.0

    _shift(fused, named, "term_bonus")


def acronym_share(query: Query) -> float:
    """What one acronym of the question weighs among the terms searched: its own content terms and the terms
    the conversation carries. "IC?" after a question about an outage asks about that outage's IC."""
    return 1.0 / max(1, len(query.lemmas) + len(query.resolved.carried))


def definition_boost(fused: list[dict], acronyms: set[str], bonus: float) -> None:
    """Evidence defining an acronym of ``acronyms`` (its ``defines``: a glossary row, "Incident Commander (IC)")
    is lifted by ``bonus`` for each: the anchor of what the acronym means."""
    if acronyms:
        _shift(fused, lambda src: bonus * len(acronyms & {defined_acronym(d) for d in src.get("defines", [])}),
               "definition_bonus")


def carried_identifiers(carried: dict[str, float], named: dict[str, set[str]], lang: str,
                        lemmatizer: Lemmatizer) -> list[tuple[dict[str, set[str]], float]]:
    """The versions, dates and codes the conversation established of the kinds the question does not name
    (``named``), each kind's from its most recent turn: (identifiers, their share), newest first. "BIOS on the
    IPC-520?" after questions about HVX 4.2 still asks about 4.2; "And on 4.1?" names its own."""
    by_kind: dict[str, tuple[set[str], float]] = {}
    for term, share in carried.items():
        for kind, ids in identifiers(term, lang, lemmatizer).items():
            if kind in named:
                continue
            latest = by_kind.get(kind)
            if latest is None or share > latest[1]:
                by_kind[kind] = (set(ids), share)
            elif share == latest[1]:
                by_kind[kind] = (latest[0] | ids, share)
    shares: dict[float, dict[str, set[str]]] = {}
    for kind, (ids, share) in by_kind.items():
        shares.setdefault(share, {})[kind] = ids
    return sorted(((ids, share) for share, ids in shares.items()), key=lambda pair: -pair[1])


def apply_priors(fused: list[dict], query: Query, lemmatizer: Lemmatizer, unit: float,
                 cfg: SearchConfig) -> list[dict]:
    """The fused list with the priors added (``unit``: what a first rank is worth), best first. The
    template twins are those of what the question names, and at their share of the penalty, of what the
    conversation established and the question leaves unnamed (``carried_identifiers``)."""
    follow_up_prior(fused, query.resolved.prior_urls, cfg.prior_weight * unit)
    named = identifiers(query.resolved.text, query.lang, lemmatizer)
    twin_penalty(fused, named, cfg.twin_penalty * unit)
    for carried, share in carried_identifiers(query.resolved.carried, named, query.lang, lemmatizer):
        twin_penalty(fused, carried, cfg.twin_penalty * share * unit)
    term_anchor_boost(fused, query.asked, cfg.term_weight * unit)
    definition_boost(fused, set(question_acronyms(query.resolved.text)),
                     cfg.term_weight * acronym_share(query) ** DEFINITION_SHARE_POWER * unit)
    return sorted(fused, key=lambda h: -h["_score_fused"])
