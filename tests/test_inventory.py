"""scripts/inventory.py: what issue 47 caps, counted; and each ablation row names a number the count holds. Pure: no
OpenSearch, no model."""
from __future__ import annotations

import importlib
import re

from core.settings import SearchConfig, Settings
from tests.script_modules import load_script

ablation, inventory, verdict_ablation = (load_script(name) for name in ("ablation", "inventory", "verdict_ablation"))
TODAY = SearchConfig()


def test_each_number_row_is_a_tuned_number_and_its_untuned_value_holds_only_while_its_row_runs():
    """A row names a tuned number the inventory counts (a ranking setting or a ranking constant of search/), its
    untuned value differs from today's, and a constant's is set on its module only inside ``patched``."""
    import importlib

    tuned = set(inventory.setting_fields()["numbers"]) | set(inventory.search_constants()["ranking"])
    for number in ablation.NUMBERS:
        assert number.path in tuned, number.path
        owner, name = number.path.split(".")
        if number.is_setting:
            assert getattr(ablation.configured(Settings(), number).search, name) == number.off
            assert getattr(TODAY, name) != number.off
            continue
        module = importlib.import_module(f"search.{owner}")
        today = getattr(module, name)
        assert today != number.off and ablation.configured(Settings(), number) == Settings()
        with ablation.patched(number):
            assert getattr(module, name) == number.off
        assert getattr(module, name) == today, number.path


def test_every_switch_of_the_ranking_settings_is_a_heuristic_or_says_why_not():
    switches = inventory.setting_fields()["switches"]
    heuristics = {h.path for h in ablation.HEURISTICS}
    assert set(switches) <= heuristics | set(inventory.NOT_HEURISTICS)


def test_the_inventory_counts_constants_that_rank_apart_from_limits_and_the_verdicts(tmp_path):
    (tmp_path / "priors.py").write_text("TWIN = 0.5\n_SHARE = -2\nNAME = 'x'\nFLAG = True\nLIMIT = 10_000\n"
                                        "def f():\n    INNER = 3\n", encoding="utf-8")
    (tmp_path / "verdict.py").write_text("CALIBRATION: tuple = ((0.0, 0.1), (0.5, 0.9))\n", encoding="utf-8")
    inventory.NOT_TUNED["LIMIT"] = "test"
    try:
        found = inventory.search_constants(tmp_path)
    finally:
        del inventory.NOT_TUNED["LIMIT"]
    assert found == {"ranking": ["priors.TWIN", "priors._SHARE"], "verdict_card": ["verdict.CALIBRATION"],
                     "not_tuned": ["priors.LIMIT"]}
    counts = inventory.inventory()
    assert re.search(r"^tuned numbers: \d+", counts, re.M) and re.search(r"^heuristics: \d+", counts, re.M)


def test_each_verdict_and_card_row_is_a_tuned_number_of_theirs_and_is_set_only_while_its_row_runs():
    """The verdict ablation's rows name tuned numbers of ``search/verdict.py`` and ``search/answer.py`` (the
    follow-up map's row fits one map instead, nothing is set), each untuned value differs from today's."""
    theirs = set(inventory.search_constants()["verdict_card"])
    for row in verdict_ablation.ROWS:
        # a card heuristic's weight is another number's value, so no tuned number of its own
        assert (row.path in theirs) != (row in verdict_ablation.CARD_HEURISTICS), row.path
        owner, name = row.path.split(".")
        module = importlib.import_module(f"search.{owner}")
        today = getattr(module, name)
        if row.off in (verdict_ablation.ONE_MAP, verdict_ablation.SIGNAL_ITSELF):
            continue
        assert today != row.off
        with ablation.patched(row):
            assert getattr(module, name) == row.off
        assert getattr(module, name) == today, row.path
    assert inventory.rowed_paths() >= {row.path for row in verdict_ablation.ROWS}
