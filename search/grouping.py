"""Grouping: the fused evidence gathered into one group per page, scored from its best evidence."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Group:
    """Evidence shown as one hit: the best first, and the hit's score."""

    items: list[dict]
    score: float


def by_page(fused: list[dict], support: tuple[float, ...]) -> list[Group]:
    """One group per page, in the order pages first appear: its best evidence's fused score plus the
    ``support`` shares of its next best ones (``page_support``)."""
    pages: dict[str, list[dict]] = {}
    for item in fused:
        pages.setdefault(item["_source"]["url"], []).append(item)
    return [Group(items, sum(w * it["_score_fused"] for w, it in zip((1.0, *support), items)))
            for items in pages.values()]


def by_evidence(fused: list[dict]) -> list[Group]:
    """No grouping: each evidence on its own, at its fused score."""
    return [Group([item], item["_score_fused"]) for item in fused]


def group(fused: list[dict], how: str, support: tuple[float, ...]) -> list[Group]:
    """``page``: by page; anything else (``none``): by evidence."""
    return by_page(fused, support) if how == "page" else by_evidence(fused)
