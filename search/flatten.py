"""A BM25 body written out as one flat disjunction of term queries, which Lucene can skip through.

``bm25_query`` asks each reading as a ``multi_match`` (``most_fields``) and a boosted ``match``: in Lucene, a
disjunction per field, each wrapped in its boost. Lucene merges a nested disjunction into its parent only when
nothing wraps it, and a boost does; so each field's disjunction keeps the question's rare words and its common
ones together, none is ever cheap enough to skip, and every posting of "which", "how" and "test" is read in
every field. Written as one term query per field and analyzed token, at its field's boost times every boost
above it (and times its count in the text, as Lucene sums a repeated word's clauses), the body scores each
evidence exactly as before, and Lucene's max-score skipping leaves the common words' postings unread where they
cannot lift an evidence into the top: the same hits and scores for every question, in about two thirds of the
time (docs/performance.md, "What makes search fast"; CHANGELOG.md, 2026-11-27).

Written here because OpenSearch has no query that takes a text and builds this shape: the tokens come from the
index's own analyzers (``analysis.FieldTokens``). ``texts_to_analyze`` lists what a body needs, ``flat_body``
rewrites it; both are pure. A bool that is named (``explain``), has a ``must`` or ``filter``, or needs two or
more of its clauses keeps its shape and is flattened inside.
"""
from __future__ import annotations

from collections.abc import Iterator

Analysis = dict[tuple[str, str], dict[str, int]]  # (field, text) -> token -> how often the text holds it


def _field_and_boost(spec: str) -> tuple[str, float]:
    """``"title^2"`` -> ("title", 2.0)."""
    name, _, boost = spec.partition("^")
    return name, float(boost) if boost else 1.0


def _match_params(params: object) -> dict:
    return params if isinstance(params, dict) else {"query": params}


def _searched(node: object) -> Iterator[tuple[str, str]]:
    """Every (field, text) a ``match`` or ``multi_match`` in ``node`` searches."""
    if isinstance(node, list):
        for item in node:
            yield from _searched(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "multi_match":
                yield from ((_field_and_boost(spec)[0], value["query"]) for spec in value["fields"])
            elif key == "match":
                yield from ((field, _match_params(params)["query"]) for field, params in value.items())
            else:
                yield from _searched(value)


def texts_to_analyze(*bodies: dict) -> list[tuple[str, str]]:
    """The distinct (field, text) pairs whose tokens ``flat_body`` needs for these bodies."""
    return list(dict.fromkeys(pair for body in bodies for pair in _searched(body)))


def _terms(field: str, text: str, boost: float, analysis: Analysis) -> list[dict]:
    return [{"term": {field: {"value": token, "boost": boost * count}}}
            for token, count in sorted(analysis[(field, text)].items())]


def _as_terms(node: dict, boost: float, analysis: Analysis) -> list[dict] | None:
    """The term queries a plain ``match`` or ``most_fields`` ``multi_match`` stands for, at ``boost`` times its
    own; None for any other query (a named one among them)."""
    if "multi_match" in node:
        spec = node["multi_match"]
        if spec.get("type") != "most_fields" or set(spec) - {"query", "fields", "type", "boost"}:
            return None
        own = boost * spec.get("boost", 1.0)
        return [term for field, field_boost in map(_field_and_boost, spec["fields"])
                for term in _terms(field, spec["query"], own * field_boost, analysis)]
    if "match" in node and len(node["match"]) == 1:
        (field, params), = node["match"].items()
        params = _match_params(params)
        if set(params) - {"query", "boost"}:
            return None
        return _terms(field, params["query"], boost * params.get("boost", 1.0), analysis)
    return None


def _clauses(node: dict, boost: float, analysis: Analysis) -> list[dict]:
    """``node`` as optional clauses of a disjunction, each at ``boost``: a match as its term queries, a bool of
    optional clauses alone (no name, no filter) as its own clauses flattened, any other query as itself."""
    terms = _as_terms(node, boost, analysis)
    if terms is not None:
        return terms
    inner = node.get("bool")
    if isinstance(inner, dict) and set(inner) <= {"should", "boost"}:
        return [c for child in inner.get("should", []) for c in _clauses(child, boost * inner.get("boost", 1.0),
                                                                            analysis)]
    rewritten = flat_body(node, analysis)
    return [rewritten] if boost == 1.0 else [{"bool": {"should": [rewritten], "boost": boost}}]


def flat_body(node: dict, analysis: Analysis) -> dict:
    """``node`` with each disjunction of matches written as one flat disjunction of term queries."""
    if "dis_max" in node:
        return {"dis_max": {**node["dis_max"], "queries": [flat_body(q, analysis) for q in node["dis_max"]["queries"]]}}
    if "bool" not in node:
        terms = _as_terms(node, 1.0, analysis)
        if terms is None:
            return node
        return {"bool": {"should": terms}} if terms else {"match_none": {}}
    spec = dict(node["bool"])
    if isinstance(spec.get("must"), dict):
        spec["must"] = flat_body(spec["must"], analysis)
    elif isinstance(spec.get("must"), list):
        spec["must"] = [flat_body(child, analysis) for child in spec["must"]]
    if "should" in spec:
        needed = spec.get("minimum_should_match", 0 if "must" in spec or "filter" in spec else 1)
        if str(needed) in ("0", "1"):
            spec["should"] = [c for child in spec["should"] for c in _clauses(child, 1.0, analysis)]
        else:  # "at least two of these": each clause must stay one clause
            spec["should"] = [flat_body(child, analysis) for child in spec["should"]]
        if str(needed) != "0" and not spec["should"]:
            return {"match_none": {}}  # an empty list of optional clauses would match every evidence
    return {"bool": spec}
