"""The verdict and card figures of ``evident eval``: a right card, the calibration fit."""
from __future__ import annotations

from evident.evaluation import Outcome, report
from evident.verdict_figures import CALIBRATION_BIN, calibration_fit, card_right, format_verdicts, verdict_figures


def test_a_card_is_right_when_it_holds_the_gold_span():
    question = {"lang": "en", "evidence": "Approved for release by Mira Okonkwo (Release Manager) on 2024-04-29"}
    assert card_right({"text": "Approved for release by Mira Okonkwo (Release Manager) on 2024-04-29."}, question)
    assert not card_right({"text": "The run used compatibility suite CS-11."}, question)
    assert card_right(None, question) is None


def test_a_card_is_judged_by_the_context_it_shows():
    question = {"lang": "en", "evidence": "Building on macOS is not supported. Use a Linux VM instead."}
    sentence = "Building on macOS is not supported."
    assert not card_right({"text": sentence, "context": ""}, question)
    assert card_right({"text": sentence, "context": f"{sentence} Use a Linux VM instead."}, question)


def test_a_metadata_span_counts_its_values_not_the_apis_field_names():
    question = {"lang": "en", "evidence": "version.by.displayName: Friederike Sauer; version.when: 2025-01-02"}
    assert card_right({"text": "Last updated (edited) on 2025-01-02 by Friederike Sauer, version 13."}, question)
    assert not card_right({"text": "Last updated (edited) on 2025-01-02 by Merle Dahlberg."}, question)
    stamped = {"lang": "de",
               "evidence": "version.by.displayName: Niels Oudshoorn; version.when: 2025-02-03T09:11:45.000Z"}
    said = "Zuletzt geändert (bearbeitet) am {} von Niels Oudshoorn, Version 15."
    assert card_right({"text": said.format("2025-02-03")}, stamped)  # a timestamp is its day, as a page shows it
    assert not card_right({"text": said.format("2025-02-04")}, stamped)
    release = {"lang": "en", "evidence": "HVX 4.1: 40 boot cycles"}  # a version is no field path
    assert not card_right({"text": "40 boot cycles"}, release)


def test_the_calibration_fit_is_monotone():
    pairs = [(i / 100, i % 3 == 0) for i in range(40)] + [(0.5 + i / 100, True) for i in range(40)]
    fit = calibration_fit(pairs)
    assert [rate for _, rate in fit] == sorted(rate for _, rate in fit)
    assert fit[0][0] == 0.0 and fit[-1][1] == 1.0 and len(pairs) // CALIBRATION_BIN >= len(fit)


def test_results_of_one_signal_share_one_bin():
    pairs = [(0.5, False)] * CALIBRATION_BIN + [(1.0, i % 2 == 0) for i in range(CALIBRATION_BIN + 5)]
    assert calibration_fit(pairs) == [[0.5, 0.0], [1.0, 0.52]]  # not a bin of 1.0s split off at rate 1.0


def test_follow_ups_get_a_fit_of_their_own_and_every_first_result_keeps_its_point():
    alone = [Outcome({"id": f"a{i}"}, 1, ["u"], signal=0.9) for i in range(CALIBRATION_BIN)]
    following = [Outcome({"id": f"f{i}"}, None, ["u"], signal=0.4, follow_up=True) for i in range(CALIBRATION_BIN)]
    result = verdict_figures(alone + following, lambda o: "tune" if o.question["id"] < "b" else "holdout")
    assert result["calibration_fit"] == [[0.9, 1.0]] and result["follow_up_calibration_fit"] == [[0.4, 0.0]]
    assert result["calibration_points"][0] == [0.9, 1, 0, "tune"]
    assert result["calibration_points"][-1] == [0.4, 0, 1, "holdout"]


def test_a_right_page_under_a_matching_first_page_is_counted_when_it_is_set_apart():
    outcomes = [Outcome({"id": "a"}, 2, ["u", "v"], verdict="strong", set_apart=True),  # right page "less related"
                Outcome({"id": "b"}, 3, ["u", "v", "w"], verdict="weak"),  # right page among the matching ones
                Outcome({"id": "c"}, 2, ["u", "v"], verdict="none"),  # "No good match": nothing is set apart
                Outcome({"id": "d"}, 1, ["u"], verdict="strong")]
    result = verdict_figures(outcomes)
    assert (result["right_page_below"], result["right_page_set_apart"]) == (2, 1)
    assert "right page below a matching first page: 2, shown as less related 1" in format_verdicts(result)


def test_the_cards_are_reported_by_answer_source_and_language_too():
    gold = "Lost or stolen devices are always handled as P1."
    right, wrong = {"text": gold, "context": ""}, {"text": "Log in to Tessera with your Talvik ID.", "context": ""}
    outcomes = [Outcome({"id": "t1", "lang": "en", "answer_source": "table", "evidence": gold}, 1, ["u"], card=right),
                Outcome({"id": "t2", "lang": "de", "answer_source": "table", "evidence": gold}, 1, ["u"], card=wrong),
                Outcome({"id": "p1", "lang": "en", "answer_source": "passage", "evidence": gold}, 1, ["u"])]
    result = report(outcomes)
    assert result["by_answer_source"]["table"]["cards"] == {"shown": 1.0, "right": 0.5, "wrong_of_shown": 0.5}
    assert result["by_answer_source"]["passage"]["cards"] == {"shown": 0.0, "right": 0.0, "wrong_of_shown": 0.0}
    assert result["by_lang"]["de"]["cards"]["wrong_of_shown"] == 1.0 and result["by_lang"]["en"]["cards"]["right"] == 0.5
    assert result["cards"] == {"shown": 0.6667, "right": 0.3333, "wrong_of_shown": 0.5}
