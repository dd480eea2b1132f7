"""scripts/verdict_ablation.py: how a row of the verdict's or the card's numbers is judged. Pure: no OpenSearch, no
model (the searches are the script's to run, on the lead's machine)."""
from __future__ import annotations

from tests.script_modules import load_script

verdict_ablation = load_script("verdict_ablation")
ROWS = {row.name: row for row in verdict_ablation.ROWS}


def figures(right: int = 50, cards_right: int = 10, cards_wrong: int = 1, n: int = 60) -> dict:
    return {"n": n, "verdict_right": right, "cards_right": cards_right, "cards_wrong": cards_wrong}


def test_a_verdict_number_keeps_when_untuned_it_loses_right_verdicts_on_two_files_not_raw_and_completed_of_one():
    base = {"harborlane-raw": figures(), "harborlane-completed": figures(), "talvik-standalone": figures()}
    one_file = {"harborlane-raw": figures(49), "harborlane-completed": figures(48), "talvik-standalone": figures(51)}
    row = ROWS["stem_chars"]
    assert verdict_ablation.row_verdict(row, one_file, base) == "candidate for removal"
    assert verdict_ablation.row_verdict(row, {**one_file, "talvik-standalone": figures(49)}, base) == "keeps"
    assert verdict_ablation.cell(row, figures(48), figures()) == "-2"
    assert verdict_ablation.cell(row, figures(), figures()) == "0"


def test_a_card_number_is_judged_by_right_cards_less_nine_times_the_wrong_ones():
    """Three more right cards and one more wrong one is a loss (3 < 9); ten more right and one more wrong a gain."""
    row = ROWS["card_min_score"]
    base = {"questions-completed": figures(), "talvik-standalone": figures()}
    more_and_wrong = {"questions-completed": figures(cards_right=13, cards_wrong=2),
                      "talvik-standalone": figures(cards_right=13, cards_wrong=2)}
    assert verdict_ablation.row_verdict(row, more_and_wrong, base) == "keeps"
    worth_it = {name: figures(cards_right=20, cards_wrong=2) for name in base}
    assert verdict_ablation.row_verdict(row, worth_it, base) == "candidate for removal"
    assert verdict_ablation.cell(row, figures(cards_right=13, cards_wrong=2), figures()) == "+3/+1"


def test_the_maps_are_fitted_on_the_tune_halves_and_one_map_serves_both_when_asked():
    """Holdout records never shape a map; follow-ups (wrong at 0.3, right at 0.6 here) get their own map unless
    the row asks for one map fitted on every first result."""
    tune = [(0.2, False, False), (0.9, False, True), (0.3, True, False), (0.6, True, True)]
    found = [(signal, follow_up, right) for signal, follow_up, right in tune for _ in range(20)]
    records = {"x": [{"half": "tune", "first": [1], "right": right} for _, _, right in found]
               + [{"half": "holdout", "first": [1], "right": True}] * 40}
    judged = {"x": [(signal, follow_up) for signal, follow_up, _ in found] + [(0.1, False)] * 40}
    own, follow_up = verdict_ablation.fitted_maps(records, judged, one_map=False)
    assert own == ((0.2, 0.0), (0.9, 1.0)) and follow_up == ((0.3, 0.0), (0.6, 1.0))
    one, same = verdict_ablation.fitted_maps(records, judged, one_map=True)
    assert one == same == ((0.2, 0.0), (0.6, 1.0))


def test_a_row_asked_for_that_does_not_exist_is_named_before_anything_is_searched(capsys):
    assert verdict_ablation.main(["--only", "stem_chars,no_such_row"]) == 2
    assert "--only no_such_row: no such row" in capsys.readouterr().err
