"""The multilingual stage: the best pages of a question read on its own, in any language, lifted by how close
their closest leaf evidence comes to it in a model that reads many languages.

Search's embedder, all-MiniLM-L6-v2, reads English only: a German question meets an English page through its
word-by-word translation, and an English question meets a page's evidence through one model's view of it. At
ingest each leaf evidence is embedded again by multilingual-e5-small (``core.multilingual``, the
``core.index.MULTILINGUAL_FIELD`` view). For the best pages of a search, one k-NN query over those pages' leaves
finds each page's closest, and each page gains by how close it comes, scaled min-max over those pages as the
sentence stage scales its own (``search.sentences``, whose arithmetic this stage shares).

Only where it can change the first page: a search whose first page leads the rest by more than the closest
stages can add embeds nothing in this model (``settled``), as the embedding is the costliest CPU of a search.
Only for a question read on its own: a follow-up's own words say less than the conversation has established (the
sentence stage lost follow-up turns for that reason, and this one, simulated on them, did too). A multilingual
model as search's embedder instead ranked worse on the bench's conversations and embeds many times slower. How the
stage works and why: docs/ranking.md, "The multilingual stage"; the figures it moved: CHANGELOG.md, 2026-11-29.

May import ``core`` (the index's field names).
"""
from __future__ import annotations

from core.index import MULTILINGUAL_FIELD

# k of the k-NN query: above the leaves of any ten pages, so Lucene compares the question with every leaf the page
# filter admits (an exact search) instead of walking the graph, as the sentence stage does.
LEAVES_COMPARED = 10_000
MULTILINGUAL_PART = "multilingual_match"  # the part an explained page books the stage's gain to


def applies(follow_up: bool) -> bool:
    """Whether the stage reads the question: one read on its own, in any language."""
    return not follow_up


def settled(page_scores: list[float], reach: float) -> bool:
    """Whether the first of the pages scored ``page_scores`` stays first whatever the closest stages add: it
    leads every other page by at least ``reach``, the most they add to one page (each adds its weight to the
    closest of its pages and nothing to the first at worst). The search then embeds no multilingual vector."""
    if len(page_scores) < 2:
        return True
    first, second = sorted(page_scores, reverse=True)[:2]
    return first - second >= reach


def multilingual_query(vector: list[float], urls: list[str], filters: list[dict]) -> dict:
    """Each of ``urls``' closest leaf evidence to ``vector``: the best evidence score per page
    (``search.sentences.closeness`` reads the answer). The caller's filters around it, as in every retriever.

    An index from before the multilingual view, not yet given its field by ``evident init``, matches nothing
    (``ignore_unmapped``), and the stage changes nothing instead of failing the search; an evidence ingested
    before the view has no vector and takes no part."""
    knn = {MULTILINGUAL_FIELD: {"vector": vector, "k": LEAVES_COMPARED, "ignore_unmapped": True,
                                "filter": {"terms": {"url": urls}}}}
    return {"size": 0, "track_total_hits": False,
            "query": {"bool": {"must": {"knn": knn}, "filter": filters}},
            "aggs": {"pages": {"terms": {"field": "url", "size": len(urls)},
                               "aggs": {"best": {"max": {"script": {"source": "_score"}}}}}}}
