"""What goes into a search and what comes out: the request, the conversation's turns, hits and the response.

Plain data, shared by the API, ``evident eval`` and every stage of ``search.searcher``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass
class Turn:
    """An earlier turn of the conversation: what was asked and what was shown."""

    query: str
    results: list[dict] = field(default_factory=list)  # at least {"url": ..., "title": ...}
    opened: list[str] = field(default_factory=list)  # URLs of the results the user opened, in that order


@dataclass
class SearchRequest:
    query: str
    k: int = 10
    page: int = 1
    groups: list[str] = field(default_factory=list)  # the caller's groups; public evidence is always visible
    history: list[Turn] = field(default_factory=list)
    filters: dict = field(default_factory=dict)  # space, kind, lang, labels (lists), date_from, date_to
    mode: str | None = None  # overrides of SearchConfig for this request (bm25, dense, hybrid, baseline)
    fusion: str | None = None
    views: tuple[str, ...] | None = None
    group: str | None = None
    use_history: bool | None = None
    collapse_duplicates: bool | None = None
    # Keep what each ranked list and prior added to each page's score (``SearchResponse.contributions``), for
    # ``evident eval --misses``; the API never sets it.
    explain: bool = False


@dataclass
class Hit:
    url: str
    title: str
    heading_path: list[str]
    kind: str
    snippet: str
    score: float
    doc_id: str
    evidence_id: str
    space: str = ""
    lang: str = ""
    breadcrumb: list[str] = field(default_factory=list)
    more: list[dict] = field(default_factory=list)  # the page's other matching evidence
    # Near-duplicates of the page folded into this hit (``search.duplicates``): {url, title, space, updated}.
    duplicates: list[dict] = field(default_factory=list)


@dataclass
class SearchResponse:
    query: str
    hits: list[Hit]
    took_ms: int
    total: int
    lang: str
    resolved_query: str
    facets: dict = field(default_factory=dict)
    translations: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # language -> word -> translations
    spelling: dict[str, str] = field(default_factory=dict)  # a typo (lower-cased) -> the word searched beside it
    acronyms: dict[str, str] = field(default_factory=dict)  # an acronym as asked -> the long form searched beside it
    warnings: list[str] = field(default_factory=list)  # an optional stage that failed, and what was done instead
    search_id: str = ""  # the search log's id of this answer, sent back with a click (set by the API)
    # With ``explain``: every ranked page's URL -> each ranked list's and prior's part of its score.
    contributions: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_json(self) -> dict:
        """The answer as JSON-ready data, without ``contributions`` (``eval``'s explanation, never sent): the hits'
        fields as they are, where ``dataclasses.asdict`` deep-copied every snippet and list (1 ms a search)."""
        answer = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "contributions"}
        answer["hits"] = [vars(hit) for hit in self.hits]
        return answer
