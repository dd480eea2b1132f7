"""``evident bench --check`` and ``--profile`` on figures made here: which figure is over its budget and how
the message names it, and the per-stage table read from the searches' Server-Timing headers."""
from __future__ import annotations

from core.profile import TOTAL, StageFigures
from core.settings import BenchConfig
from evident.bench import IngestFigures, SearchFigures
from evident.bench_check import format_profile, over_budget


def searched(index: str, evidence: int, mode: str, clients: int, ms: float, stages=()) -> SearchFigures:
    return SearchFigures(index, evidence, mode, clients, searches=3, errors=0, latencies_ms=[ms, ms, ms],
                         wall_seconds=1.0, stages=list(stages))


def ingested(wall: float, embedder: float) -> IngestFigures:
    return IngestFigures(files=61, pages=300, evidence=2000, failed=0, wall_seconds=wall, warm_up_seconds=wall,
                         embedded_texts=2000, views=("context",), embedder_seconds=embedder, multilingual_texts=0,
                         multilingual_seconds=0.0)


def run_of(bm25_ms: float, hybrid_one_ms: float, hybrid_four_ms: float, index: str = "scale") -> list[SearchFigures]:
    return [searched(index, 50_000, "bm25", 1, bm25_ms), searched(index, 50_000, "bm25", 4, bm25_ms),
            searched(index, 50_000, "hybrid", 1, hybrid_one_ms), searched(index, 50_000, "hybrid", 4, hybrid_four_ms)]


def test_a_run_within_every_budget_passes():
    assert over_budget(ingested(15.0, 12.0), run_of(20, 25, 40), BenchConfig()) == []


def test_each_figure_over_its_budget_is_named_with_its_value_budget_and_setting():
    over = over_budget(ingested(26.0, 10.0), run_of(20, 35, 90), BenchConfig())
    assert over == [
        "hybrid p50 with 1 client on scale (50000 evidence): 35 ms over the budget of 30 ms ([bench] hybrid_p50_ms)",
        "hybrid p95 with 4 clients on scale (50000 evidence): 90 ms over the budget of 80 ms ([bench] hybrid_p95_ms)",
        "hybrid p95 / BM25 p95 with 4 clients on scale (50000 evidence): 4.50x over the budget of 2x "
        "([bench] hybrid_over_bm25)",
        "ingest of 61 files: 26.0 s over the budget of 20 s ([bench] ingest_seconds)",
        "ingest wall / the embedders' own time: 2.60x over the budget of 1.3x ([bench] ingest_over_embedder)"]


def test_a_figure_just_over_its_budget_is_printed_with_the_places_that_show_it_over():
    over = over_budget(ingested(20.04, 20.0), run_of(70, 25, 80.4), BenchConfig())
    assert over == [
        "hybrid p95 with 4 clients on scale (50000 evidence): 80.4 ms over the budget of 80 ms ([bench] hybrid_p95_ms)",
        "ingest of 61 files: 20.04 s over the budget of 20 s ([bench] ingest_seconds)"]


def test_the_latencies_are_held_to_the_budget_on_the_largest_index_only():
    small_and_slow = [searched("bench", 300, mode, clients, 500) for mode in ("bm25", "hybrid") for clients in (1, 4)]
    assert over_budget(None, small_and_slow + run_of(20, 25, 40), BenchConfig()) == []
    assert over_budget(None, run_of(20, 25, 40, index="bench"), BenchConfig(hybrid_p95_ms=39)) == [
        "hybrid p95 with 4 clients on bench (50000 evidence): 40 ms over the budget of 39 ms ([bench] hybrid_p95_ms)"]


def test_a_figure_that_could_not_be_measured_is_over():
    failed = [searched("bench", 300, "hybrid", 1, 0)]
    failed[0].latencies_ms = []
    assert over_budget(None, failed, BenchConfig()) == [
        "hybrid p95 with 1 clients on bench (300 evidence): nan ms over the budget of 80 ms ([bench] hybrid_p95_ms)",
        "hybrid p50 with 1 client on bench (300 evidence): nan ms over the budget of 30 ms ([bench] hybrid_p50_ms)"]


def test_the_profile_gives_each_stage_its_median_p95_and_round_trips_with_what_ran_between_them():
    stages = [{"spelling": StageFigures(2.0), "retrieve": StageFigures(10.0, 1), TOTAL: StageFigures(12.0, 1)},
              {"retrieve": StageFigures(20.0, 2), TOTAL: StageFigures(22.0, 2)}]
    table = format_profile([searched("bench", 300, "hybrid", 1, 30, stages), searched("bench", 300, "hybrid", 4, 30)])
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()]
    assert rows[0] == ["index", "mode", "stage", "median ms", "p95 ms", "round trips"]
    assert rows[2:] == [["bench", "hybrid", "spelling", "1.0", "1.9", "0.0"],  # a search without it: 0 ms
                        ["bench", "hybrid", "retrieve", "15.0", "19.5", "1.5"],
                        ["bench", "hybrid", "other", "1.0", "1.9", "0.0"],
                        ["bench", "hybrid", "total", "17.0", "21.5", "1.5"]]
