"""scripts/figures.py: the figures table of docs/ranking.md, written from `evident eval --json` results. Pure."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures)


def result(p_at_1: float, restricted: int = 0, **breakdowns: dict) -> dict:
    """The shape of ``evident.evaluation.report``: overall figures, restricted questions, failures, breakdowns."""
    out = {"n": 121, "p_at_1": p_at_1, "hit_at_5": 0.9835, "mrr": 0.9289,
           "restricted": {"n": restricted, "leaks": 0}, "failed": []}
    out.update({f"by_{name}": {key: {"n": 1, "p_at_1": value, "hit_at_5": 1.0, "mrr": 1.0}
                               for key, value in groups.items()} for name, groups in breakdowns.items()})
    return out


def test_a_row_holds_the_figures_the_halves_the_languages_the_baseline_and_the_restricted():
    line = figures.row("questions.jsonl, raw", result(0.9008, 5, lang={"en": 0.883, "de": 0.963},
                                                       split={"tune": 0.842, "holdout": 0.953}), result(0.884))
    assert line == ("| questions.jsonl, raw | 121 | 0.901 | 0.984 | 0.929 | 0.883 / 0.963 | 0.842 / 0.953 | 0.884 "
                    "| 0 of 5 |  |  |")


def test_a_row_without_halves_baseline_or_restricted_questions_leaves_those_cells_blank():
    line = figures.row("evalsets/harborlane, completed", result(0.947))
    assert line.endswith("| 0.947 | 0.984 | 0.929 |  |  |  |  |  |  |")


def test_a_row_shows_the_verdict_and_card_figures_and_an_out_of_corpus_row_its_share_not_strong():
    judged = result(0.934) | {"verdicts": {}, "not_strong": 0.12, "strong_when_right": 0.9, "strong_when_wrong": 0.4,
                              "cards": {"right": 0.31, "wrong_of_shown": 0.19}}
    assert figures.row("questions.jsonl, completed", judged).endswith("| 0.900 / 0.400 | 0.310 / 0.190 |")
    assert figures.row("asked of another wiki", judged, out_of_corpus=True).endswith("| not strong 0.120 |  |")


def test_the_table_keeps_the_order_of_rows_and_leaves_out_a_row_without_its_file():
    text = figures.table({"questions-completed": result(0.942), "questions-raw": result(0.901),
                          "questions-baseline": result(0.884)}, "2026-12-01")
    lines = text.splitlines()
    assert lines[:2] == figures.HEADER.splitlines()
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| questions.jsonl, raw", "| questions.jsonl, completed"]
    assert "Measured on 2026-12-01" in lines[-1] and len(lines) == 6


def test_only_what_stands_between_the_markers_is_replaced():
    doc = f"before\n{figures.START}\nold table\n{figures.END}\nafter\n"
    assert figures.rewrite(doc, "new table") == f"before\n{figures.START}\nnew table\n{figures.END}\nafter\n"
    with pytest.raises(ValueError):
        figures.rewrite("no markers here", "new table")


def test_main_rewrites_a_document_from_a_folder_of_json(tmp_path):
    (tmp_path / "conversations-raw.json").write_text(json.dumps(result(0.829, 8)), encoding="utf-8")
    doc = tmp_path / "ranking.md"
    doc.write_text(f"# Ranking\n{figures.START}\n{figures.END}\n", encoding="utf-8")
    assert figures.main(["--figures", str(tmp_path), "--doc", str(doc)]) == 0
    assert "| conversations.jsonl, raw | 121 | 0.829 |" in doc.read_text(encoding="utf-8")
    assert figures.main(["--figures", str(tmp_path / "empty"), "--doc", str(doc)]) == 1


def test_the_ranking_document_has_its_markers():
    doc = (ROOT / "docs" / "ranking.md").read_text(encoding="utf-8")
    assert doc.count(figures.START) == 1 and doc.count(figures.END) == 1
    assert doc.index(figures.START) < doc.index(figures.END)
    assert f"{figures.START}\nNEW TABLE\n{figures.END}" in figures.rewrite(doc, "NEW TABLE")
