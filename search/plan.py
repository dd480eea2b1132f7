"""``Plan``: a search request's switches resolved against the search settings, and how deep each ranked list reads.

May import ``core.settings`` and ``search.schema``.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.settings import Settings
from search.schema import SearchRequest

# Grouping folds several evidence into one page: fetch three evidence per hit asked for (all pages up to
# the one asked), so a deep page of results still has enough pages behind it.
EVIDENCE_PER_HIT = 3
# OpenSearch answers at most index.max_result_window (10,000) hits per query and k-NN at most k = 10,000:
# a page deeper than that asks for what exists up to there, and comes back empty, not as an error.
MAX_DEPTH = 10_000


@dataclass(frozen=True)
class Plan:
    """The request's switches resolved against ``SearchConfig``."""

    mode: str  # bm25 | dense | hybrid | baseline
    fusion: str  # minmax | rrf | merge
    views: tuple[str, ...]  # the dense views searched
    group: str  # page | none
    use_history: bool
    depth: int  # evidence fetched per retriever
    server_side: bool  # one hybrid query fused by a search pipeline inside OpenSearch

    @classmethod
    def of(cls, request: SearchRequest, settings: Settings) -> Plan:
        cfg = settings.search
        mode, fusion_name = request.mode or cfg.mode, request.fusion or cfg.fusion
        return cls(mode=mode, fusion=fusion_name, views=tuple(request.views or cfg.views),
                   group=request.group or cfg.group,
                   use_history=cfg.history if request.use_history is None else request.use_history,
                   depth=min(MAX_DEPTH, max(cfg.candidates, request.k * request.page * EVIDENCE_PER_HIT)),
                   # View merging runs in the application only.
                   server_side=cfg.server_side and mode == "hybrid" and fusion_name != "merge")
