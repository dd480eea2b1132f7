"""What goes into a search and what comes out: the request, the conversation's turns, hits and the response.

Plain data, shared by the API, ``evident eval`` and every stage of ``search.searcher``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from core.settings import SortOrder
from ingest.evidence import KIND_LABELS

Verdict = Literal["strong", "weak", "none"]  # ``search.verdict``: answers, may answer, nothing matches well


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
    # The caller's principals (``ingest.principals``: groups, and ``user:<id>``), matched against read restrictions;
    # public evidence is always visible.
    groups: list[str] = field(default_factory=list)
    history: list[Turn] = field(default_factory=list)
    # space, kind, lang, labels, author (lists), date_from, date_to; phrases and excluded (``search.syntax``)
    filters: dict = field(default_factory=dict)
    mode: str | None = None  # overrides of SearchConfig for this request (bm25, dense, hybrid, baseline)
    fusion: str | None = None
    views: tuple[str, ...] | None = None
    group: str | None = None
    use_history: bool | None = None
    collapse_duplicates: bool | None = None
    sort: SortOrder = "relevance"
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
    label: str = ""  # the kind in words, as a result list shows it ("Table row", "PDF page 3")
    space: str = ""  # the space's key
    space_name: str = ""  # its name, when the source gives one ("Operations" for OPS)
    lang: str = ""
    breadcrumb: list[str] = field(default_factory=list)
    updated: str = ""  # the page's last update (ISO-8601), when its source says
    author: str = ""  # who last changed the page, when its source says (``ingest.evidence.Evidence.author``)
    more: list[dict] = field(default_factory=list)  # the page's other matching evidence
    # Near-duplicates of the page folded into this hit (``search.duplicates``): {url, title, space, updated}.
    duplicates: list[dict] = field(default_factory=list)
    verdict: Verdict = "none"  # whether this result answers the question (``search.verdict``)
    confidence: float = 0.0  # how often a result of its signal is the right page, 0..1


@dataclass
class Answer:
    """The answer card (``search.answer``): the one unit of evidence that answers the question."""

    text: str  # a table row as "header: value · ...", a definition as term and meaning, else as written
    context: str  # a sentence or list item with its neighbours in the evidence, or a pair answering together one a line
    # (two table rows, two list items), holding ``text``; else empty
    kind: Literal["table_row", "definition", "sentence", "list_item", "page_fact"]
    title: str
    url: str
    heading_path: list[str]
    evidence_id: str
    confidence: float  # the first result's confidence


EVAL_ONLY = ("contributions", "signal", "follow_up")  # fields for ``evident eval``, never sent to a client


@dataclass
class SearchResponse:
    query: str
    hits: list[Hit]
    took_ms: int
    total: int
    lang: str
    resolved_query: str
    facets: dict[str, dict[str, int]] = field(default_factory=dict)  # facet -> value -> results holding it
    space_names: dict[str, str] = field(default_factory=dict)  # a space key of ``facets`` -> its name, where known
    # Each evidence kind in words ("table_row": "Table row"), for the type filter built from ``facets["kind"]``.
    kind_labels: dict[str, str] = field(default_factory=lambda: dict(KIND_LABELS))
    translations: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # language -> word -> translations
    spelling: dict[str, str] = field(default_factory=dict)  # a typo (lower-cased) -> the word searched beside it
    acronyms: dict[str, str] = field(default_factory=dict)  # an acronym as asked -> the long form searched beside it
    warnings: list[str] = field(default_factory=list)  # an optional stage that failed, and what was done instead
    verdict: Verdict = "none"  # the first result's verdict; none without results (a zero-hit query in the log)
    confidence: float = 0.0  # the first result's confidence
    answer: Answer | None = None  # the answer card, only when one evidence answers the question
    search_id: str = ""  # the search log's id of this answer, sent back with a click (set by the API)
    # With ``explain``: every ranked page's URL -> each ranked list's and prior's part of its score.
    contributions: dict[str, dict[str, float]] = field(default_factory=dict)
    # The first result's verdict signal before calibration (``search.verdict``), for ``evident eval``'s fit.
    signal: float = 0.0
    # Whether terms carried from earlier turns were read with the question: the verdict's follow-up map judged it.
    follow_up: bool = False
    # Asked after earlier turns, but read on its own: none of its own words is a word of a language the search reads
    # or one the corpus writes (``search.conversation.off_the_map``), so the conversation's topic would only have
    # brought back the earlier pages. The page and the widget then start the conversation afresh from it.
    new_topic: bool = False

    def as_json(self) -> dict:
        """The answer as JSON-ready data, without the fields of ``EVAL_ONLY``: the hits' fields as they are, where
        ``dataclasses.asdict`` deep-copied every snippet and list (1 ms a search)."""
        answer = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in EVAL_ONLY}
        answer["hits"] = [vars(hit) for hit in self.hits]
        answer["answer"] = vars(self.answer) if self.answer else None
        return answer
