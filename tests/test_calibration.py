"""scripts/calibration.py: the follow-up map fitted over every saved evaluation's tune half. Pure."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("scripts_calibration", ROOT / "scripts" / "calibration.py")
calibration = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calibration)


def test_the_follow_ups_of_the_tune_halves_of_every_saved_evaluation_are_pooled(tmp_path, capsys):
    points = [[0.3, 0, 1, "tune"], [0.8, 1, 1, "tune"], [0.9, 1, 0, "tune"], [0.2, 1, 1, "holdout"]]
    (tmp_path / "conversations-raw.json").write_text(json.dumps({"calibration_points": points}), encoding="utf-8")
    (tmp_path / "ooc-harborlane-on-bench-raw.json").write_text(
        json.dumps({"calibration_points": [[0.35, 0, 1, "tune"]]}), encoding="utf-8")
    (tmp_path / "harborlane-raw.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "talvik-conversations-raw.json").write_text(json.dumps({"calibration_points": [[0.5, 1]]}),
                                                              encoding="utf-8")
    pooled, left_out = calibration.follow_up_points(tmp_path)
    assert sorted(pooled) == [(0.3, False), (0.35, False), (0.8, True)]  # no standalone, no untouched half
    assert f"{tmp_path / 'questions-raw.json'}: missing" in left_out
    assert not any("conversations-raw.json" in why and "talvik" not in why for why in left_out)
    assert any(why.startswith(f"{tmp_path / 'harborlane-raw.json'}: not the --json") for why in left_out)
    assert any(why.startswith(f"{tmp_path / 'talvik-conversations-raw.json'}: not the --json") for why in left_out)
    assert calibration.main(["--figures", str(tmp_path)]) == 0  # the readable files are still fitted
    printed = capsys.readouterr()
    assert "FOLLOW_UP_CALIBRATION: tuple[tuple[float, float], ...] = ((0.3, " in printed.out
    assert "questions-raw.json: missing; fitted without it" in printed.err
    assert "harborlane-raw.json: not the --json of evident eval" in printed.err


def test_no_saved_follow_up_is_an_error(tmp_path, capsys):
    assert calibration.main(["--figures", str(tmp_path)]) == 1
    assert "no follow-up" in capsys.readouterr().err
