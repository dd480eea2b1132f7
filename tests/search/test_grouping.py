"""Grouping fused evidence by page, on plain data."""
from __future__ import annotations

from search.grouping import group


def _item(key: str, url: str, score: float) -> dict:
    return {"_id": key, "_score_fused": score, "_source": {"url": url}}


FUSED = [_item("a1", "A", 1.0), _item("b1", "B", 0.9), _item("a2", "A", 0.5), _item("a3", "A", 0.4),
         _item("a4", "A", 0.3)]


def test_a_page_scores_its_best_evidence_plus_shares_of_its_next_best():
    groups = group(FUSED, "page", (0.5, 0.25))
    assert [[it["_id"] for it in g.items] for g in groups] == [["a1", "a2", "a3", "a4"], ["b1"]]
    assert groups[0].score == 1.0 + 0.5 * 0.5 + 0.25 * 0.4  # a4 does not count
    assert groups[1].score == 0.9


def test_without_grouping_each_evidence_stands_alone():
    groups = group(FUSED, "none", (0.5, 0.25))
    assert [(g.items[0]["_id"], g.score) for g in groups] == [(it["_id"], it["_score_fused"]) for it in FUSED]
