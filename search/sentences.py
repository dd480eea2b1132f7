"""The sentence stage: a question read on its own meets the one sentence of a page that answers it.

The context view embeds an evidence whole, with its title, headings and neighbours: right for finding the
topic, blunt for telling apart two pages on it ("My laptop was stolen on a business trip, who do I contact
first?" met a page on business contacts before the one on IT tickets). At ingest each leaf evidence's sentences
are embedded one by one as well (the sentence view, nested objects under ``core.index.SENTENCE_FIELD``). For the
best pages of a search, one k-NN query over their sentences alone finds each page's closest sentence, and each
page gains by how close it comes, scaled min-max over those pages as the fusion scales its lists. The answer card
reads the same vectors: each sentence of the first page's best evidence and how close it comes (``unit_query``).

Only for a question read on its own and written in the embedder's language (``applies``): a follow-up's own
words say less than the conversation has established, and the sentence closest to them pulled pages away from
it (simulated on the bench's follow-ups, it lost turns at every weight); a model of one language reads another
poorly (German questions gained nothing). docs/ranking.md, "The sentence stage"; the figures: CHANGELOG.md.

May import ``core`` (the index's field names), ``search.fusion`` and ``search.grouping``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from core.index import SENTENCE_FIELD
from search.fusion import min_max
from search.grouping import Group

# k of the k-NN query: above the sentences of any ten pages, so Lucene compares the question with every sentence
# the page filter admits (an exact search, which it runs when the filter admits fewer than k) instead of walking
# the graph, where a filter this narrow would leave most pages unreached.
SENTENCES_COMPARED = 10_000
UNIT_SENTENCES = 100  # sentences of one evidence scored for the answer card: more than a passage or list holds
SENTENCE_PART = "sentence_match"  # the part an explained page books the stage's gain to


def applies(follow_up: bool, lang: str, model_language: str) -> bool:
    """Whether the stage reads the question: one read on its own, in the embedder's language (any language
    when the model reads all: ``model_language`` empty)."""
    return not follow_up and (not model_language or lang == model_language)


def sentence_query(vector: list[float], urls: list[str], filters: list[dict]) -> dict:
    """Each of ``urls``' closest sentence to ``vector``: the best evidence score per page (``closeness``).

    The page filter sits inside the k-NN query (an exact search over those pages' sentences); the caller's
    filters around it, as in every retriever, though these pages already passed them."""
    knn = {f"{SENTENCE_FIELD}.vec": {"vector": vector, "k": SENTENCES_COMPARED,
                                     "filter": {"terms": {"url": urls}}}}
    return {"size": 0, "track_total_hits": False,
            # An index from before the sentence view, not yet given its field by ``evident init``: no page
            # matches (``ignore_unmapped``), and the stage changes nothing instead of failing the search.
            "query": {"bool": {"must": {"nested": {"path": SENTENCE_FIELD, "score_mode": "max",
                                                   "ignore_unmapped": True, "query": {"knn": knn}}},
                               "filter": filters}},
            "aggs": {"pages": {"terms": {"field": "url", "size": len(urls)},
                               "aggs": {"best": {"max": {"script": {"source": "_score"}}}}}}}


def closeness(response: dict) -> dict[str, float]:
    """Page URL -> its closest sentence's score, from ``sentence_query``'s answer."""
    return {bucket["key"]: bucket["best"]["value"] for bucket in response["aggregations"]["pages"]["buckets"]}


def gains(close: dict[str, float]) -> dict[str, float]:
    """Each page's closeness scaled min-max to 0..1 over the pages compared; none when they all come as close."""
    if len(set(close.values())) < 2:
        return {}
    return dict(zip(close, min_max(list(close.values()))))


def with_gains(groups: list[Group], shares: dict[str, float], amount: float, explain: bool,
               part: str = SENTENCE_PART) -> list[Group]:
    """``groups`` with each page's share of ``amount`` added to its score and to its best evidence (booked to
    ``part`` to ``explain``), so the page's parts still add up to its score."""
    out = []
    for found in groups:
        added = amount * shares.get(found.items[0]["_source"]["url"], 0.0)
        if not added:
            out.append(found)
            continue
        best = {**found.items[0], "_score_fused": found.items[0]["_score_fused"] + added}
        if explain:
            best["_parts"] = {**best.get("_parts", {})}
            best["_parts"][part] = best["_parts"].get(part, 0.0) + added
        out.append(replace(found, items=[best, *found.items[1:]], score=found.score + added))
    return out


def unit_query(vector: list[float], evidence_ids: list[str]) -> dict:
    """Each sentence of the evidence ``evidence_ids`` and its closeness to ``vector``: the answer card's units
    (``search.answer``) scored with the vectors the worker embedded, every sentence of an evidence
    (``expand_nested_docs``), not only its closest. The evidence are results the caller was shown: no filter."""
    knn = {f"{SENTENCE_FIELD}.vec": {"vector": vector, "k": SENTENCES_COMPARED, "expand_nested_docs": True,
                                     "filter": {"ids": {"values": evidence_ids}}}}
    return {"size": len(evidence_ids), "_source": False, "track_total_hits": False,
            "query": {"bool": {"must": {"nested": {"path": SENTENCE_FIELD, "score_mode": "max",
                                                   "ignore_unmapped": True, "query": {"knn": knn},
                                                   "inner_hits": {"size": UNIT_SENTENCES,
                                                                  "_source": [f"{SENTENCE_FIELD}.text"]}}},
                               "filter": [{"ids": {"values": evidence_ids}}]}}}


@dataclass(frozen=True)
class AskedUnits:
    """``unit_query``'s answer and the evidence it was asked for (an evidence without sentence vectors has no hit)."""

    evidence_ids: frozenset[str]
    response: dict


def unit_closeness(response: dict, titles: dict[str, str]) -> dict[str, dict[str, float]]:
    """Evidence id -> each of its sentences (without the page's title the sentence view puts before it: ``titles``,
    by evidence id) -> its closeness, from ``unit_query``'s answer."""
    out: dict[str, dict[str, float]] = {}
    for hit in response["hits"]["hits"]:
        evidence_id = hit["_id"]  # an evidence's document id is its id
        prefix = f"{titles.get(evidence_id, '')}: "
        out[evidence_id] = {inner["_source"]["text"].removeprefix(prefix): inner["_score"]
                            for inner in hit["inner_hits"][SENTENCE_FIELD]["hits"]["hits"]}
    return out
