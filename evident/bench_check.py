"""``evident bench --profile`` and ``--check``: where a search's time goes, and the run against its budget.

The profile is read from the ``Server-Timing`` header of each search the bench sent (``core.profile``): per
index and mode, the one-client run's stages, each with its median and p95 milliseconds and its OpenSearch
round trips per search; ``other`` is what runs between the stages (grouping, sorting), ``total`` the search
without HTTP. The check compares the run's figures with ``[bench]`` (``core.settings.BenchConfig``): the
latencies on the largest index the run measured, the ingest when it ran.
"""
from __future__ import annotations

import math
import statistics

from core.profile import TOTAL, StageFigures
from core.settings import BenchConfig
from evident.bench import IngestFigures, SearchFigures, format_table, percentile

OTHER = "other"  # the total less its named stages
PROFILED_CLIENTS = 1  # a lone client's stages: under load each stage also holds the wait for a core
DECIMALS = {" ms": 0, " s": 1, "x": 2}  # as the report prints each kind of figure
MORE_DECIMALS = 3  # places added, one at a time, until a figure just over its budget no longer rounds onto it


def stage_samples(stages: list[dict[str, StageFigures]]) -> dict[str, list[StageFigures]]:
    """Each stage's figures over the searches, in the order the stages ran, then ``other`` and ``total``; a
    search that skipped a stage counts 0 ms there."""
    names = list(dict.fromkeys(name for search in stages for name in search if name != TOTAL))
    out: dict[str, list[StageFigures]] = {name: [] for name in [*names, OTHER, TOTAL]}
    for search in stages:
        total = search.get(TOTAL, StageFigures())
        for name in names:
            out[name].append(search.get(name, StageFigures()))
        out[OTHER].append(StageFigures(max(0.0, total.ms - sum(search.get(n, StageFigures()).ms for n in names))))
        out[TOTAL].append(total)
    return out


def format_profile(searches: list[SearchFigures]) -> str:
    """The per-stage table of each index and mode's one-client run."""
    rows = []
    for figures in searches:
        if figures.clients != PROFILED_CLIENTS:
            continue
        for name, samples in stage_samples(figures.stages).items():
            ms = [s.ms for s in samples]
            trips = statistics.fmean(s.round_trips for s in samples) if samples else math.nan
            rows.append((figures.index, figures.mode, name, f"{percentile(ms, 50):.1f}", f"{percentile(ms, 95):.1f}",
                         f"{trips:.1f}"))
    if not rows:
        return "profile: no search answered with a Server-Timing header"
    return format_table(("index", "mode", "stage", "median ms", "p95 ms", "round trips"), rows)


def over_limit(value: float, limit: float, decimals: int) -> str:
    """``value``, over ``limit``, with ``decimals`` places, or more (up to ``MORE_DECIMALS`` more) where fewer would
    print the limit itself: "80.4", not "80 ms over the budget of 80 ms"."""
    for places in range(decimals, decimals + MORE_DECIMALS + 1):
        shown = f"{value:.{places}f}"
        if math.isnan(value) or float(shown) > limit:
            break
    return shown


def over_budget(ingest: IngestFigures | None, searches: list[SearchFigures], budget: BenchConfig) -> list[str]:
    """A line per figure over its ``[bench]`` budget, naming the figure, its value, the budget and its setting.
    A figure that could not be measured (no search answered) is over."""
    out = []

    def check(what: str, value: float, limit: float, unit: str, setting: str) -> None:
        if not value <= limit:  # NaN, nothing measured, is over too
            out.append(f"{what}: {over_limit(value, limit, DECIMALS[unit])}{unit} over the budget of {limit:g}{unit} "
                       f"([bench] {setting})")

    if searches:
        largest = max(searches, key=lambda s: s.evidence)
        measured = {(s.mode, s.clients): s for s in searches if s.index == largest.index}
        where = f"on {largest.index} ({largest.evidence} evidence)"
        for (mode, clients), figures in sorted(measured.items()):
            if mode != "hybrid":
                continue
            p95 = figures.percentile(95)
            if clients == max(c for _m, c in measured):
                check(f"hybrid p95 with {clients} clients {where}", p95, budget.hybrid_p95_ms, " ms", "hybrid_p95_ms")
            if clients == 1:
                check(f"hybrid p50 with 1 client {where}", figures.percentile(50), budget.hybrid_p50_ms, " ms",
                      "hybrid_p50_ms")
            bm25 = measured.get(("bm25", clients))
            if bm25:
                check(f"hybrid p95 / BM25 p95 with {clients} client{'s' if clients > 1 else ''} {where}",
                      p95 / bm25.percentile(95), budget.hybrid_over_bm25, "x", "hybrid_over_bm25")
    if ingest:
        check(f"ingest of {ingest.files} files", ingest.wall_seconds, budget.ingest_seconds, " s", "ingest_seconds")
        embedders = ingest.embedder_seconds + ingest.multilingual_seconds
        check("ingest wall / the embedders' own time", ingest.wall_seconds / embedders if embedders else math.inf,
              budget.ingest_over_embedder, "x", "ingest_over_embedder")
    return out
