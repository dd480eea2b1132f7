"""scripts/evaluations.py: the one list of evaluations that eval-bench.sh runs, figures.py tabulates and the
ablation asks again. Pure."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("scripts_evaluations", ROOT / "scripts" / "evaluations.py")
evaluations = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(evaluations)


def test_each_index_is_ingested_before_the_first_evaluation_that_asks_it():
    lines = evaluations.plan(Path("/bench"))
    ingested: set[str] = set()
    for line in lines:
        if line[0] == "ingest":
            assert line[1] not in ingested  # once each
            ingested.add(line[1])
        else:
            assert line[0] == "eval" and line[2] in ingested, line[1]
    assert lines[0] == ["ingest", "evalbench", "/bench/wiki/pages", "/bench/pdf"]
    assert ["ingest", "evalharbor", str(ROOT / "evalsets/harborlane/pages")] in lines


def test_an_evaluation_line_holds_the_eval_arguments_of_its_reading():
    by_name = {line[1]: line for line in evaluations.plan(Path("/bench")) if line[0] == "eval"}
    assert by_name["questions-raw"][2:] == ["evalbench", "questions.jsonl, raw", "/bench/questions.jsonl",
                                            "--field", "question"]
    assert by_name["questions-baseline"][-2:] == ["--conversation", "prev-question"]
    assert by_name["ooc-harborlane-on-bench"][2] == "evalbench" and by_name["ooc-harborlane-on-bench"][-1] == \
        "--out-of-corpus"
    assert len(by_name) == len(evaluations.EVALUATIONS) == 27  # names are unique


def test_every_repository_questions_file_exists_and_each_raw_reading_has_its_baseline_where_one_is_run():
    for e in evaluations.EVALUATIONS:
        assert e.bench or (ROOT / e.path).is_file(), e.path
    assert evaluations.baseline_of(next(e for e in evaluations.EVALUATIONS if e.name == "harborlane-raw")).name == \
        "harborlane-baseline"
    assert evaluations.baseline_of(next(e for e in evaluations.EVALUATIONS if e.name == "harborlane-completed")) \
        is None
