"""The closest-match stages after grouping, asked together: the best pages lifted by how close their closest
sentence comes to the question (``sentences``), then by how close their closest leaf evidence comes in the
multilingual model (``multilingual``, when on), each by up to ``sentence_weight`` rank-one units.

Both stages compare the same pages, those of one page of results (the request's ``k`` best: a rank window the
size of the page asked, as Elasticsearch's RRF sizes it by default; 5 and 20 pages simulated the same as 10 for
both stages), so both k-NN queries go in one ``_msearch``: the sentence stage's gains raise only those pages,
and the same pages are the best after them. The answer card's query (``search.sentences.unit_query``) for the
evidence of the pages likeliest to come first rides along, so a card rarely costs a round trip of its own.

May import ``core`` (settings), ``search.duplicates``, ``search.grouping``, ``search.multilingual``,
``search.query``, ``search.retrievers`` and ``search.sentences``.
"""
from __future__ import annotations

from opensearchpy import OpenSearch

from core.settings import Settings
from search import multilingual
from search.duplicates import copies
from search.grouping import Group
from search.query import Query
from search.retrievers import msearch
from search.sentences import (SENTENCE_PART, AskedUnits, applies, closeness, gains, sentence_query, unit_query,
                              with_gains)


def match_closest(client: OpenSearch, settings: Settings, query: Query, filters: list[dict], unit: float,
                  vectors: list[list[float]], multilingual_vector: list[float] | None, groups: list[Group],
                  explain: bool, card_ids: list[str], pages: int) -> tuple[list[Group], AskedUnits | None]:
    """``groups`` after the sentence and the multilingual stage over their best ``pages``, each gain ``unit``
    (the fusion's rank-one score) times the stage's weight, booked to the stage's part when the request asks to
    ``explain``; and the answer card's sentence closeness over the evidence ``card_ids`` (``search.answer``),
    asked in the same round trip when one goes out anyway."""
    cfg = settings.search
    stages = []  # (query, weight, part) of each stage that applies
    if sentence_body := sentence_search(settings, query, vectors, groups, filters, pages):
        stages.append((sentence_body, cfg.sentence_weight, SENTENCE_PART))
    if multilingual_body := multilingual_search(multilingual_vector, groups, filters, pages):
        stages.append((multilingual_body, cfg.sentence_weight, multilingual.MULTILINGUAL_PART))
    ahead = [unit_query(vectors[0], card_ids)] if stages and vectors and card_ids else []
    answers = msearch(client, settings.opensearch.index_alias, [body for body, _, _ in stages] + ahead)
    asked = AskedUnits(frozenset(card_ids), answers[-1]) if ahead else None
    for (_, weight, part), answer in zip(stages, answers):
        groups = with_gains(groups, gains(closeness(answer)), weight * unit, explain, part)
    return groups, asked


def sentence_search(settings: Settings, query: Query, vectors: list[list[float]], groups: list[Group],
                    filters: list[dict], pages: int) -> dict | None:
    """The sentence stage's k-NN query over the best ``pages`` pages; none without the question's
    vectors, for a follow-up or a question in another language than the embedder's, or with fewer than two
    pages ranked."""
    cfg = settings.search
    if (cfg.sentence_weight <= 0 or not vectors
            or not applies(query.resolved.follow_up, query.lang, settings.embedding.language)):
        return None
    urls = best_urls(groups, pages)
    return sentence_query(vectors[0], urls, filters) if len(urls) >= 2 else None


def multilingual_search(vector: list[float] | None, groups: list[Group], filters: list[dict],
                        pages: int) -> dict | None:
    """The multilingual stage's k-NN query over the best ``pages`` pages; none without the question's
    multilingual ``vector`` or with fewer than two pages ranked."""
    urls = best_urls(groups, pages)
    return multilingual.multilingual_query(vector, urls, filters) if vector and len(urls) >= 2 else None


def best_urls(groups: list[Group], pages: int) -> list[str]:
    """The URLs of the best ``pages`` groups, best first."""
    return [found.items[0]["_source"]["url"] for found in sorted(groups, key=lambda found: -found.score)[:pages]]


def rivals(ranked: list[Group], fold_bits: int | None) -> list[Group]:
    """The pages after the first of ``ranked`` that these stages could lift over it (``multilingual.settled`` reads
    their scores): not a page whose evidence read word for word as the first's (a copy under another address: the
    stages add to both alike), nor, when near-duplicates are folded (within ``fold_bits``), one of its
    near-duplicates (one result with it after the stages; which of them it shows goes by space, creation date and
    title, their order only breaking a tie)."""
    if not ranked:
        return []
    first = ranked[0]
    said = [item["_source"].get("text", "") for item in first.items]
    return [found for found in ranked[1:]
            if [item["_source"].get("text", "") for item in found.items] != said
            and not (fold_bits is not None and copies(first, found, fold_bits))]
