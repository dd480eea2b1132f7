"""Fusion: the joiners that turn the retrievers' ranked lists into one list of evidence.

``rrf``: weighted reciprocal rank fusion. ``minmax`` (the default): weighted mean of min-max normalized
scores. ``merge``: MC-indexing's view merging. ``pipeline_processor`` is the same min-max or RRF joiner as a
search-pipeline processor, for fusion inside OpenSearch. ``rank_one_unit`` is the scale the priors and the
reranker add to fused scores in.
"""
from __future__ import annotations

from fractions import Fraction

# BM25's list weighs 1: the unit of every other list's weight and of the priors (``rank_one_unit``). The weights
# and the priors count only against one another, so scaling them all alike ranks nothing otherwise.
BM25_WEIGHT = 1.0
# MC-indexing's view merging takes the top two thirds of each list.
MERGE_SHARE = Fraction(2, 3)
# The normalization and score-ranker processors require weights summing to 1; six decimals keep them exact
# enough for that and short in the request.
WEIGHT_DECIMALS = 6
# A ranked list's named sub-queries (``_name``; their scores come back with ``include_named_queries_score``):
# the question's readings are alternatives, a dis_max keeps the best; the carried terms add to it.
READING_PREFIX = "reading_"  # reading_own_words, reading_translated_de
CARRIED_PREFIX = "carried_"  # carried_0, carried_1: one per share of weight


def query_name(name: str, explain: bool) -> dict:
    """The ``_name`` a sub-query carries in an explained search, none otherwise: OpenSearch matches every
    named sub-query against every hit it returns (about 1 ms a BM25 search at 50k evidence)."""
    return {"_name": name} if explain else {}


def min_max(scores: list[float], window: int | None = None) -> list[float]:
    """Each score scaled to [0, 1] between the lowest and the highest; all 1 when they are equal. With ``window``
    (scores best first), between the lowest and highest of the first ``window`` alone, and 0 for the scores past
    it: a list fetched deeper for a later page of results scales its first ``window`` scores as the first page's
    search did, so the pages already shown keep their order and "More results" continues it."""
    head = scores[:window] if window else scores
    low, high = min(head, default=0.0), max(head, default=0.0)
    return [(s - low) / (high - low) if high > low else 1.0 for s in head] + [0.0] * (len(scores) - len(head))


def rank_shares(scores: list[float], fusion: str, weight: float, rrf_k: int,
                window: int | None = None) -> list[float]:
    """What each item of one ranked list (best first) adds to its fused score at ``weight``:
    ``weight / (rrf_k + rank)`` under ``rrf``, its min-max normalized score (over the first ``window``) times
    ``weight`` otherwise."""
    if fusion == "rrf":
        return [weight / (rrf_k + rank) for rank in range(1, len(scores) + 1)]
    return [weight * s for s in min_max(scores, window)]


def shares(weights: list[float]) -> list[float]:
    """The weights scaled to sum to 1."""
    total = sum(weights) or 1.0
    return [w / total for w in weights]


def rank_one_unit(fusion: str, weights: list[float], rrf_k: int) -> float:
    """What a first rank in a ranked list of weight 1 is worth in the fused score (min-max scores are shares
    of the summed weights): the unit of the priors."""
    return 1.0 / (rrf_k + 1) if fusion == "rrf" else 1.0 / (sum(weights) or 1.0)


def fuse(ranked_lists: list[list[dict]], fusion: str, rrf_k: int, weights: list[float] | None = None,
         names: list[str] | None = None, window: int | None = None) -> list[dict]:
    """Combine the retrievers' ranked lists into one, by evidence id, each with its ``_score_fused``; with
    ``names`` (one per list) each also keeps ``_parts``, what each named list added to it (``explain``).

    ``rrf``: weighted reciprocal rank fusion, sum of w / (k + rank). ``minmax``: weighted mean of min-max
    normalized scores (as the server-side normalization processor computes it; each list over its first
    ``window`` hits, the depth of a first page's search, so a later page's deeper lists rank the first pages
    alike). ``merge``: MC-indexing's view merging, the top 2/3 of each list taken in turn, de-duplicated by section.
    """
    weights = weights or [1.0] * len(ranked_lists)
    if fusion == "merge":
        merged = merge_views(ranked_lists)
        return whole_parts(merged, "view_merge") if names else merged
    if fusion != "rrf":
        weights = shares(weights)
    scores: dict[str, float] = {}
    items: dict[str, dict] = {}
    for hits, weight, name in zip(ranked_lists, weights, names or [""] * len(ranked_lists)):
        for hit, share in zip(hits, rank_shares([h["_score"] for h in hits], fusion, weight, rrf_k, window)):
            item = items.setdefault(hit["_id"], hit)
            scores[hit["_id"]] = scores.get(hit["_id"], 0.0) + share
            if name:
                for part, amount in named_parts(name, share, hit.get("matched_queries")).items():
                    add_part(item, part, amount)
    fused = []
    for key, score in sorted(scores.items(), key=lambda kv: -kv[1]):
        item = items[key]
        item["_score_fused"] = score
        fused.append(item)
    return fused


def named_parts(name: str, share: float, matched: dict[str, float] | list | None) -> dict[str, float]:
    """A list's share of a fused score split over the named sub-queries that scored the hit (``matched``,
    name -> score): the best reading (``<name>_own_words``, ``<name>_translated_de``) and the carried terms
    (``<name>_carried``), in proportion to their raw scores. A proportion of the normalized share, not an
    exact decomposition (min-max subtracts the list's lowest score first); the whole share as ``name``
    when the list's sub-queries were not named or scored."""
    if not isinstance(matched, dict):
        return {name: share}
    raw: dict[str, float] = {}
    readings = {k: v for k, v in matched.items() if k.startswith(READING_PREFIX)}
    if readings:
        best = max(readings, key=readings.__getitem__)
        raw[f"{name}_{best[len(READING_PREFIX):]}"] = readings[best]
    carried = sum(v for k, v in matched.items() if k.startswith(CARRIED_PREFIX))
    if carried:
        raw[f"{name}_carried"] = carried
    total = sum(raw.values())
    return {part: share * score / total for part, score in raw.items()} if total > 0 else {name: share}


def add_part(item: dict, name: str, amount: float) -> None:
    """Book ``amount`` of the item's fused score to ``name`` (a ranked list, a prior, the reranker)."""
    parts = item.setdefault("_parts", {})
    parts[name] = parts.get(name, 0.0) + amount


def whole_parts(fused: list[dict], name: str) -> list[dict]:
    """Each item's whole fused score booked to ``name``: fused where its lists cannot be told apart."""
    for item in fused:
        item["_parts"] = {name: item["_score_fused"]}
    return fused


def page_parts(items: list[dict], support: tuple[float, ...]) -> dict[str, float]:
    """The parts of a page's score as ``grouping.by_page`` adds it up: its best evidence's parts and the
    ``support`` shares of its next best ones'."""
    parts: dict[str, float] = {}
    for weight, item in zip((1.0, *support), items):
        for name, amount in item.get("_parts", {}).items():
            parts[name] = parts.get(name, 0.0) + weight * amount
    return parts


def fused_by_opensearch(hits: list[dict]) -> list[dict]:
    """The hits of a ``hybrid`` query fused by a search pipeline: their score is already the fused one."""
    for hit in hits:
        hit["_score_fused"] = hit["_score"]
    return hits


def merge_views(ranked_lists: list[list[dict]]) -> list[dict]:
    """The top ``MERGE_SHARE`` of each list taken in turn, rank by rank, once per section."""
    merged: list[dict] = []
    seen: set[str] = set()
    depth = int(max((len(hits) for hits in ranked_lists), default=0) * MERGE_SHARE)
    for rank in range(depth):
        for hits in ranked_lists:
            if rank < len(hits):
                hit = hits[rank]
                key = hit["_source"].get("section_id") or hit["_id"]
                if key not in seen:
                    seen.add(key)
                    merged.append(hit)
    for position, hit in enumerate(merged, start=1):
        hit["_score_fused"] = 1.0 / position
    return merged


def pipeline_processor(fusion: str, weights: list[float], rrf_k: int) -> dict:
    """The search-pipeline processor that fuses a ``hybrid`` query's sub-queries inside OpenSearch as
    ``fuse`` does here, with the same weights (scaled to sum to 1, as the processors require)."""
    rounded = [round(s, WEIGHT_DECIMALS) for s in shares(weights)]
    rounded[-1] = round(1.0 - sum(rounded[:-1]), WEIGHT_DECIMALS)
    if fusion == "rrf":
        return {"score-ranker-processor": {"combination": {
            "technique": "rrf", "rank_constant": rrf_k, "parameters": {"weights": rounded}}}}
    return {"normalization-processor": {"normalization": {"technique": "min_max"}, "combination": {
        "technique": "arithmetic_mean", "parameters": {"weights": rounded}}}}
