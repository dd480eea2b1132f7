"""Acronyms: an acronym of the question is searched beside the long form the corpus defines for it, when the
corpus writes the long form on at least as many pages as the acronym.

Pages write "Incident Commander" where a user asks "IC?": BM25 meets the acronym only where it is written, and
the embedder has never seen the company's own acronyms. Ingest keeps each definition a glossary row or a
parenthesis gives (``text.acronyms``, the ``defines`` keyword of the evidence stating it). ``AcronymExpander.run``
takes each acronym-shaped word of the question (``acronyms.is_acronym``, as written: "it" is no "IT"), the long
form the most evidence the caller may read define it as, and keeps it when the long form is written on at
least as many pages the caller may read as the acronym. An acronym the pages use on their own (an "OTA" on nine
pages, "over-the-air" on two) is found as typed, and its long form would only pull the question towards the
few pages that spell it out: searched beside "OTA", "over-the-air" cost the bench a question about the OTA
signing certificate's outage. ``expanded`` puts each long form beside its acronym in the text searched, and the
answer names them (``SearchResponse.acronyms``).

It finds "IC?" after a postmortem's outage question, and "bAV" for "Betriebliche Altersvorsorge"; searched beside
every defined acronym instead, it lost more than it gained. How it works and why: docs/ranking.md, "Acronyms"; the
figures it moved: CHANGELOG.md, 2026-11-29.
"""
from __future__ import annotations

import re

from opensearchpy import OpenSearch

from search.cache import ExpiringCache
from search.retrievers import acl_filter, msearch
from search.vocabulary import KNOWN_SECONDS, KNOWN_WORDS
from text.acronyms import SEPARATOR, question_acronyms


def expanded(text: str, expansions: dict[str, str]) -> str:
    """``text`` with each acronym followed by its long form ("IC Incident Commander?"): the acronym is kept,
    so a page that writes it still matches it."""
    for acronym, long in expansions.items():
        text = re.sub(rf"(?<![\w-])({re.escape(acronym)})(?![\w-])", rf"\1 {long}", text)
    return text


def _pages(query: dict, acl: dict) -> dict:
    """A search counting the pages (``doc_id``) whose evidence the caller may read matches ``query``."""
    return {"size": 0, "track_total_hits": False, "query": {"bool": {"must": query, "filter": acl}},
            "aggs": {"pages": {"cardinality": {"field": "doc_id"}}}}


class AcronymExpander:
    """Configuration-only init; ``run`` asks OpenSearch only for acronyms it has not looked up lately."""

    def __init__(self, client: OpenSearch, index: str):
        self.client = client
        self.index = index
        # Each acronym looked up, per caller's read groups -> its long form ('' for none to search beside it).
        self._known: ExpiringCache[tuple[str, tuple[str, ...]], str] = ExpiringCache(KNOWN_SECONDS, KNOWN_WORDS)

    def run(self, question: str, principals: list[str]) -> dict[str, str]:
        """Each acronym of ``question`` -> the long form searched beside it (none for an acronym the corpus
        does not define for the caller, or writes on more pages than its long form)."""
        groups = tuple(sorted(principals))
        asked = question_acronyms(question)
        longs = {key[0]: long for key, long in self._known.fresh((a, groups) for a in asked).items()}
        unknown = [a for a in asked if a not in longs]
        if unknown:
            looked_up = self._look_up(unknown, principals)
            longs |= {a: looked_up.get(a, "") for a in unknown}
            self._known.store({(a, groups): longs[a] for a in unknown})
        return {a: longs[a] for a in asked if longs[a]}

    def _look_up(self, acronyms: list[str], principals: list[str]) -> dict[str, str]:
        """Two ``_msearch``: each acronym's most stated long form and its pages, then the long forms' pages."""
        acl = acl_filter(principals)
        first: list[dict] = []
        for acronym in acronyms:
            prefix = f"{acronym}{SEPARATOR}"
            first += [{"size": 0, "query": {"bool": {"filter": [{"prefix": {"defines": prefix}}, acl]}},
                       "aggs": {"long": {"terms": {"field": "defines", "size": 1,
                                                   "include": f"{re.escape(prefix)}.*"}}}},
                      _pages({"match": {"text": acronym}}, acl)]
        answers = msearch(self.client, self.index, first)
        candidates: dict[str, tuple[str, int]] = {}
        for n, acronym in enumerate(acronyms):
            buckets = answers[2 * n].get("aggregations", {}).get("long", {}).get("buckets", [])
            if buckets:
                candidates[acronym] = (buckets[0]["key"][len(acronym) + len(SEPARATOR):],
                                       answers[2 * n + 1]["aggregations"]["pages"]["value"])
        if not candidates:
            return {}
        counts = msearch(self.client, self.index,
                         [_pages({"match_phrase": {"text": long}}, acl) for long, _ in candidates.values()])
        return {acronym: long for (acronym, (long, written)), answer in zip(candidates.items(), counts)
                if answer["aggregations"]["pages"]["value"] >= written}
