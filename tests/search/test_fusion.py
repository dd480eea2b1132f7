"""The joiners on plain ranked lists: min-max, RRF, view merging, and the server-side pipeline's weights."""
from __future__ import annotations

import pytest

from search.fusion import (fuse, merge_views, min_max, named_parts, page_parts, pipeline_processor, rank_one_unit,
                           rank_shares)


def _hits(*pairs, section: str | None = None) -> list[dict]:
    return [{"_id": key, "_score": score, "_source": {"section_id": section or key}} for key, score in pairs]


def test_min_max_scales_between_lowest_and_highest():
    assert min_max([4.0, 3.0, 2.0]) == [1.0, 0.5, 0.0]
    assert min_max([2.0, 2.0]) == [1.0, 1.0]  # all equal: all count fully
    assert min_max([]) == []


def test_a_list_fetched_deeper_for_a_later_page_ranks_its_first_window_as_the_first_page_did():
    def lists(depth: int, window: int | None) -> list[tuple[str, float]]:
        bm25 = _hits(("a", 10.0), ("b", 6.0), ("c", 2.0), ("d", 1.0), ("e", 0.5))[:depth]  # page two fetches 5
        knn = _hits(("c", 0.9), ("a", 0.5), ("b", 0.1))
        return [(h["_id"], h["_score_fused"]) for h in fuse([bm25, knn], "minmax", 60, [1.0, 0.3], window=window)]
    shallow, deep = lists(3, window=3), lists(5, window=3)
    assert deep[:3] == shallow and [name for name, _ in deep[3:]] == ["d", "e"]  # past the window: below them
    # without the window, the deeper list's lowest score moves every share of the first page
    assert [score for _, score in lists(5, window=None)[:3]] != [score for _, score in shallow]


def test_rank_shares_under_rrf_and_min_max():
    assert rank_shares([9.0, 1.0], "rrf", 2.0, 60) == [2.0 / 61, 2.0 / 62]
    assert rank_shares([9.0, 5.0, 1.0], "minmax", 2.0, 60) == [2.0, 1.0, 0.0]


def test_min_max_fusion_is_a_weighted_mean_of_normalized_scores():
    bm25 = _hits(("a", 10.0), ("b", 5.0), ("c", 0.0))
    knn = _hits(("c", 0.9), ("a", 0.5), ("b", 0.1))
    fused = fuse([bm25, knn], "minmax", 60, [3.0, 1.0])
    assert [h["_id"] for h in fused] == ["a", "b", "c"]
    assert fused[0]["_score_fused"] == pytest.approx(0.75 + 0.25 * 0.5)
    assert fused[2]["_score_fused"] == pytest.approx(0.25)


def test_rrf_sums_weighted_reciprocal_ranks():
    fused = fuse([_hits(("a", 3.0), ("b", 2.0)), _hits(("b", 0.9), ("c", 0.8))], "rrf", 60)
    assert [h["_id"] for h in fused] == ["b", "a", "c"]
    assert fused[0]["_score_fused"] == pytest.approx(1 / 62 + 1 / 61)


@pytest.mark.parametrize("fusion", ["minmax", "rrf"])
def test_named_lists_book_each_share_of_the_fused_score(fusion):
    def lists():
        return [_hits(("a", 10.0), ("b", 5.0), ("c", 0.0)), _hits(("c", 0.9), ("a", 0.5))]

    fused = fuse(lists(), fusion, 60, [3.0, 1.0], ["bm25", "dense_text"])
    unnamed = fuse(lists(), fusion, 60, [3.0, 1.0])
    assert [(h["_id"], h["_score_fused"]) for h in fused] == [(h["_id"], h["_score_fused"]) for h in unnamed]
    for hit in fused:
        assert sum(hit["_parts"].values()) == pytest.approx(hit["_score_fused"])
    b = next(h for h in fused if h["_id"] == "b")
    assert set(b["_parts"]) == {"bm25"}  # found by one list only
    a = next(h for h in fused if h["_id"] == "a")
    assert a["_parts"]["bm25"] == pytest.approx(0.75 if fusion == "minmax" else 3.0 / 61)


def test_unnamed_lists_keep_no_parts_and_merged_views_book_the_whole_score():
    assert all("_parts" not in h for h in fuse([_hits(("a", 1.0), ("b", 0.5))], "minmax", 60))
    merged = fuse([_hits(("a", 3.0), ("b", 2.0), ("c", 1.0))], "merge", 60, names=["dense_text"])
    assert [h["_parts"] for h in merged] == [{"view_merge": 1.0}, {"view_merge": 0.5}]


def test_a_page_adds_up_its_evidence_parts_as_grouping_adds_their_scores():
    items = [{"_parts": {"bm25": 0.6, "shown_page_prior": 0.2}}, {"_parts": {"bm25": 0.4}},
             {"_parts": {"dense_text": 1.0}}]
    assert page_parts(items, (0.5, 0.25)) == pytest.approx({"bm25": 0.8, "shown_page_prior": 0.2, "dense_text": 0.25})


def test_an_empty_list_takes_no_part():
    assert [h["_id"] for h in fuse([[], _hits(("a", 1.0))], "minmax", 60)] == ["a"]


def test_view_merging_takes_the_top_two_thirds_in_turn_once_per_section():
    first = _hits(("a", 3.0), ("b", 2.0), ("c", 1.0))
    second = [{"_id": "x", "_score": 1.0, "_source": {"section_id": "a"}}, *_hits(("d", 0.5), ("e", 0.1))]
    merged = merge_views([first, second])
    assert [h["_id"] for h in merged] == ["a", "b", "d"]  # x repeats a's section; depth 3 * 2 // 3 = 2
    assert [h["_score_fused"] for h in merged] == [1.0, 0.5, 1 / 3]
    assert fuse([first, second], "merge", 60) == merged


def test_rank_one_unit():
    assert rank_one_unit("rrf", [1.0, 0.3], 60) == 1 / 61
    assert rank_one_unit("minmax", [1.0, 0.5, 0.5], 60) == 0.5


@pytest.mark.parametrize("fusion, name", [("rrf", "score-ranker-processor"), ("minmax", "normalization-processor")])
def test_pipeline_weights_sum_to_one(fusion, name):
    processor = pipeline_processor(fusion, [1.0, 0.3, 0.15], 60)
    weights = processor[name]["combination"]["parameters"]["weights"]
    assert sum(weights) == pytest.approx(1.0, abs=1e-9) and weights[0] == round(1 / 1.45, 6)


def test_a_lists_share_is_split_by_its_best_reading_and_the_carried_terms():
    matched = {"reading_own_words": 1.0, "reading_translated_de": 3.0, "carried_0": 0.5, "carried_1": 0.5}
    assert named_parts("bm25", 0.8, matched) == pytest.approx({"bm25_translated_de": 0.6, "bm25_carried": 0.2})
    assert named_parts("bm25", 0.8, {"reading_own_words": 2.0}) == {"bm25_own_words": 0.8}
    assert named_parts("bm25", 0.8, ["reading_own_words"]) == {"bm25": 0.8}  # names without scores
    assert named_parts("dense_context", 0.3, None) == {"dense_context": 0.3}
