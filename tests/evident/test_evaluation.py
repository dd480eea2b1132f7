"""``evident eval``: the figures, and a questions file scored through the CLI against the real services."""
from __future__ import annotations

import json

import pytest

from evident.evaluation import figures, first_gold_rank, in_split, split_of
from tests.evident.test_cli import evident, index_env
from tests.test_samples import facts_table

WIKI = "https://wiki.example.org/spaces/OPS/pages/1/Page"


def test_the_first_gold_page_counts_once_per_page_and_a_pdf_page_apart():
    urls = [f"{WIKI}#Intro", f"{WIKI}#Setup", "https://files.example.org/m.pdf#page=1",
            "https://files.example.org/m.pdf#page=2"]
    assert first_gold_rank(urls, [WIKI]) == 1
    assert first_gold_rank(urls, ["https://files.example.org/m.pdf#page=2"]) == 3
    assert first_gold_rank(urls, ["https://nowhere.example.org/"]) is None
    assert figures([1, 3, None, 6]).as_dict() == {"n": 4, "p_at_1": 0.25, "hit_at_5": 0.5, "mrr": 0.375}


def test_eval_scores_a_questions_file(sample_corpus, settings, tmp_path):
    facts = facts_table()
    lines = []
    for n, fact in enumerate(facts):
        question = {"id": f"s{n}", "conv_id": f"c{n}", "turn": 1, "question": fact["Query"],
                    "completed_question": fact["Query"], "lang": "de" if fact["Kind"] == "German page" else "en",
                    "gold_urls": [fact["Expected URL"]], "answer_source": fact["Kind"], "complexity": "simple"}
        if fact["Visible to"] != "everyone":
            question["restricted_to"] = fact["Visible to"]
        lines.append(json.dumps(question))
    lines.append(json.dumps({"id": "miss", "conv_id": "cx", "turn": 1, "question": "TS-E4471",
                             "completed_question": "TS-E4471", "lang": "en", "answer_source": "passage",
                             "gold_urls": ["https://nowhere.example.org/page"], "complexity": "simple"}))
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    result = evident("eval", str(path), "--json", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    n = len(facts) + 1
    assert report["n"] == n
    assert report["p_at_1"] == round(len(facts) / n, 4) and report["hit_at_5"] == round(len(facts) / n, 4)
    assert report["by_lang"]["de"] == {"n": 1, "p_at_1": 1.0, "hit_at_5": 1.0, "mrr": 1.0}
    assert report["by_answer_source"]["passage"]["p_at_1"] == 0.0
    restricted = sum(f["Visible to"] != "everyone" for f in facts)
    assert report["restricted"] == {"n": restricted, "leaks": 0}


def test_eval_names_a_broken_questions_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    result = evident("eval", str(path))
    assert result.returncode == 1 and "q.jsonl:2" in result.stderr


def test_conversations_split_into_two_fixed_halves_by_their_id():
    questions = [{"id": f"q{n}{t}", "conv_id": f"c{n}", "turn": t} for n in range(40) for t in (1, 2)]
    tune, holdout = in_split(questions, "tune"), in_split(questions, "holdout")
    assert len(tune) + len(holdout) == len(questions) and tune and holdout
    assert {q["conv_id"] for q in tune}.isdisjoint({q["conv_id"] for q in holdout})  # a conversation stays whole
    assert all(split_of(q["conv_id"]) == "tune" for q in tune) and in_split(questions, None) == questions
    with pytest.raises(ValueError, match="'train'"):
        in_split(questions, "train")


def test_eval_compares_the_conversation_state_with_the_baseline_on_one_half(sample_corpus, settings, tmp_path):
    runbook = next(f for f in facts_table() if f["Kind"] == "rare error code")["Expected URL"]
    turns = [("What does the error TS-E4471 mean?", 1), ("and how do I fix it?", 2)]
    path = tmp_path / "conversation.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"t{turn}", "conv_id": "c1", "turn": turn, "question": text,
                                          "completed_question": text, "lang": "en", "gold_urls": [runbook],
                                          "answer_source": "passage"}) for text, turn in turns), encoding="utf-8")
    for mode in ("state", "prev-question"):
        result = evident("eval", str(path), "--field", "question", "--conversation", mode, "--json",
                         env=index_env(settings))
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["p_at_1"] == 1.0 and report["by_split"] == {split_of("c1"): report["by_split"][split_of("c1")]}
    other = "holdout" if split_of("c1") == "tune" else "tune"
    for split, n in ((split_of("c1"), 2), (other, 0)):
        result = evident("eval", str(path), "--split", split, "--json", env=index_env(settings))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["n"] == n
