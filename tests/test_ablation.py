"""scripts/ablation.py: its selection of heuristics and files, its table and verdicts. Pure: no
OpenSearch, no model (the runs themselves are the script's to do, on the lead's machine)."""
from __future__ import annotations

import json

import pytest

from core.settings import PROJECT_ROOT as ROOT
from core.settings import Settings
from tests.script_modules import load_script


ablation, figures = load_script("ablation"), load_script("figures")


def result(config: str, evaluation, right: int, n: int = 45, failed: int = 0, value=None) -> dict:
    """The shape ``ablation.evaluate`` writes."""
    return {"config": config, "value": value, "evaluation": evaluation.name, "questions": evaluation.path,
            "seconds": 10.0, "right": right,
            "report": {"n": n, "p_at_1": right / n, "failed": [{"id": "x", "error": "e"}] * failed}}


def by_name(name: str):
    return next(e for e in ablation.EVALUATIONS if e.name == name)


def test_the_ablation_asks_each_evaluation_with_a_column_and_its_questions_file_exists():
    """The evaluations come from scripts/evaluations.py, the list eval-bench.sh runs and figures.py tabulates: the
    ablation's are those with a column, neither baselines nor out-of-corpus sets."""
    stems = {stem for _, stem, _ in figures.ROWS}
    for e in ablation.EVALUATIONS:
        assert e.name in stems and e.label and not e.baseline and not e.out_of_corpus, e.name
        assert e.bench or (ROOT / e.path).is_file(), e.path
    assert len({e.name for e in ablation.EVALUATIONS}) == len(ablation.EVALUATIONS) == 16
    assert len({e.label for e in ablation.EVALUATIONS}) == 16  # one column each


def test_each_heuristic_is_a_setting_and_its_off_value_differs_from_today():
    settings = Settings()
    for h in ablation.HEURISTICS:
        section, name = h.path.split(".")
        today = getattr(getattr(settings, section), name)
        off = getattr(getattr(ablation.configured(settings, h), section), name)
        assert off == h.off != today, h.path
        assert getattr(getattr(settings, section), name) == today  # the settings given are not changed


def test_only_and_files_select_and_a_name_that_selects_nothing_is_named():
    heuristics, evaluations = ablation.selected("sentence_weight", "talvik-standalone")
    assert [h.path for h in heuristics] == ["search.sentence_weight"]
    assert [e.name for e in evaluations] == ["talvik-standalone"]
    assert len(ablation.selected(None, "harborlane-*")[1]) == 5
    assert ablation.selected("baseline", None)[0] == []
    assert len(ablation.selected(None, None)[0]) == len(ablation.HEURISTICS) + len(ablation.NUMBERS)
    with pytest.raises(ValueError, match="no such heuristic.*sentence_weight"):
        ablation.selected("sentences", None)
    with pytest.raises(ValueError, match="matches no evaluation"):
        ablation.selected(None, "nothing")


def test_a_heuristic_keeps_when_off_it_loses_on_two_question_files_not_on_raw_and_completed_of_one():
    raw, completed, talvik = by_name("harborlane-raw"), by_name("harborlane-completed"), by_name("talvik-standalone")
    base = {e.name: result("baseline", e, 30) for e in (raw, completed, talvik)}
    one_file = {raw.name: result("x", raw, 29), completed.name: result("x", completed, 28),
                talvik.name: result("x", talvik, 31)}
    assert ablation.verdict(one_file, base, 3) == "candidate for removal"
    two_files = {**one_file, talvik.name: result("x", talvik, 29)}
    assert ablation.verdict(two_files, base, 3) == "keeps"
    assert ablation.verdict({raw.name: result("x", raw, 29)}, base, 3) == "incomplete (1 of 3)"
    assert "incomplete (3 of 16)" in ablation.table({"baseline": base, "twin_penalty": one_file})


def test_the_table_shows_todays_p_at_1_and_each_change_off_and_marks_failed_searches():
    talvik, de = by_name("talvik-standalone"), by_name("talvik-standalone-de")
    results = {"baseline": {talvik.name: result("baseline", talvik, 37), de.name: result("baseline", de, 36)},
               "sentence_weight": {talvik.name: result("sentence_weight", talvik, 36, value=0.0),
                                   de.name: result("sentence_weight", de, 36, failed=1, value=0.0)}}
    lines = ablation.table(results, (talvik, de)).splitlines()
    assert lines[0] == "| heuristic | setting: off | talvik | talvik de | verdict |"
    assert lines[2] == "| today's P@1 (n) | | 0.822 (45) | 0.800 (45) | |"
    assert lines[3] == "| the sentence stage | `search.sentence_weight`: 0.0 | -0.022 | 0! | candidate for removal |"
    assert "1 searches failed" in lines[-1] and "talvik = talvik-standalone" in lines[-1]


def test_the_table_goes_between_the_markers_of_the_document_and_into_its_own_file(tmp_path):
    talvik = by_name("talvik-standalone")
    folder = tmp_path / "ablation"
    for config in ("baseline", "spelling"):
        path = ablation.result_path(config, talvik, folder)
        ablation.write_json(path, result(config, talvik, 37, value=False if config == "spelling" else None))
    doc, out = tmp_path / "ranking.md", tmp_path / "ablation.md"
    doc.write_text(f"# Ranking\n{ablation.START}\nold\n{ablation.END}\nafter\n", encoding="utf-8")
    assert ablation.write_table(doc, out, folder)
    text = doc.read_text(encoding="utf-8")
    assert "old" not in text and text.endswith(f"{ablation.END}\nafter\n") and out.read_text(encoding="utf-8") in text
    assert not ablation.write_table(doc, out, tmp_path / "empty")
    with pytest.raises(ValueError):
        ablation.rewrite("no markers", "table")


def test_a_run_of_numbers_alone_rewrites_their_table_and_keeps_the_heuristics_one(tmp_path):
    talvik = by_name("talvik-standalone")
    folder = tmp_path / "ablation"
    number = ablation.NUMBERS[0]
    for config, value in (("baseline", None), (number.name, number.off)):
        ablation.write_json(ablation.result_path(config, talvik, folder), result(config, talvik, 37, value=value))
    doc, out = tmp_path / "ranking.md", tmp_path / "ablation.md"
    start, end = ablation.NUMBERS_MARKERS
    doc.write_text(f"{ablation.START}\nheuristics\n{ablation.END}\n{start}\nold\n{end}\n", encoding="utf-8")
    assert ablation.write_table(doc, out, folder)
    text = doc.read_text(encoding="utf-8")
    assert "heuristics" in text and "old" not in text and out.read_text(encoding="utf-8") in text
    assert f"| {number.what} | `{number.path}`: {number.off} | 0 | incomplete (1 of 16) |" in text
    assert text.index(start) < text.index("| tuned number | untuned |") < text.index(end)


def test_the_ranking_document_has_the_ablation_markers_under_their_heading():
    doc = (ROOT / "docs" / "ranking.md").read_text(encoding="utf-8")
    assert doc.count(ablation.START) == 1 and doc.count(ablation.END) == 1
    start, end = ablation.NUMBERS_MARKERS
    assert doc.index(ablation.END) < doc.index(start) < doc.index(end) < doc.index("## Evaluating")
    assert doc.index("## Ablation") < doc.index(ablation.START) < doc.index(ablation.END) < doc.index(
        "## Evaluating and explaining a miss")


def test_a_result_on_disk_of_other_code_or_another_off_value_is_asked_again(tmp_path, monkeypatch):
    monkeypatch.setattr(ablation, "RESULTS", tmp_path)
    h = next(h for h in ablation.HEURISTICS if h.name == "page_support")
    talvik = by_name("talvik-standalone")
    assert not ablation.done(h.name, h, talvik, "abc")
    kept = result(h.name, talvik, 30, value=json.loads("[]")) | {"code": "abc"}
    ablation.write_json(ablation.result_path(h.name, talvik), kept)
    assert ablation.done(h.name, h, talvik, "abc") and not ablation.done(h.name, h, talvik, "def")
    ablation.write_json(ablation.result_path(h.name, talvik), kept | {"value": [0.1]})
    assert not ablation.done(h.name, h, talvik, "abc")


def test_the_fingerprint_follows_the_code_and_the_settings(tmp_path, monkeypatch):
    monkeypatch.setattr(ablation, "FINGERPRINTED", ("search", "evident/evaluation.py"))
    (tmp_path / "search").mkdir()
    (tmp_path / "evident").mkdir()
    (tmp_path / "search" / "priors.py").write_text("TWIN = 0.5\n", encoding="utf-8")
    (tmp_path / "evident" / "evaluation.py").write_text("", encoding="utf-8")
    before = ablation.fingerprint(Settings(), tmp_path)
    assert ablation.fingerprint(Settings(), tmp_path) == before
    h = next(h for h in ablation.HEURISTICS if h.name == "spelling")
    assert ablation.fingerprint(ablation.configured(Settings(), h), tmp_path) != before
    (tmp_path / "search" / "priors.py").write_text("TWIN = 0.4\n", encoding="utf-8")
    assert ablation.fingerprint(Settings(), tmp_path) != before
