"""``evident eval``: the figures, and a questions file scored through the CLI against the real services (the CLI run
in the test process: each command skips Python's start and the imports of torch, spaCy and the rest)."""
from __future__ import annotations

import dataclasses
import json

import pytest

from api.schema import MAX_K
from evident.evaluation import figures, first_gold_rank, format_misses, in_split, split_of
from search.searcher import SearchRequest, Searcher, Turn
from tests.evident.test_cli import evident_here, index_env  # noqa: F401 - the in-process command fixture
from tests.search.test_searcher import _PrefersTitle  # a stand-in cross-encoder that knows one page is the answer
from tests.test_samples import facts_table

WIKI = "https://wiki.example.org/spaces/OPS/pages/1/Page"


def test_the_first_gold_page_counts_once_per_page_and_a_pdf_page_apart():
    urls = [f"{WIKI}#Intro", f"{WIKI}#Setup", "https://files.example.org/m.pdf#page=1",
            "https://files.example.org/m.pdf#page=2"]
    assert first_gold_rank(urls, [WIKI]) == 1
    assert first_gold_rank(urls, ["https://files.example.org/m.pdf#page=2"]) == 3
    assert first_gold_rank(urls, ["https://nowhere.example.org/"]) is None
    assert figures([1, 3, None, 6]).as_dict() == {"n": 4, "p_at_1": 0.25, "hit_at_5": 0.5, "mrr": 0.375}


def test_eval_scores_a_questions_file(sample_corpus, settings, tmp_path, evident_here):
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
    result = evident_here("eval", str(path), "--json", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    n = len(facts) + 1
    assert report["n"] == n
    assert report["p_at_1"] == round(len(facts) / n, 4) and report["hit_at_5"] == round(len(facts) / n, 4)
    assert report["by_lang"]["de"] == {"n": 1, "p_at_1": 1.0, "hit_at_5": 1.0, "mrr": 1.0,
                                       "cards": report["by_lang"]["de"]["cards"]}
    assert set(report["by_lang"]["de"]["cards"]) == {"shown", "right", "wrong_of_shown"}
    assert report["by_answer_source"]["passage"]["p_at_1"] == 0.0
    restricted = sum(f["Visible to"] != "everyone" for f in facts)
    assert report["restricted"] == {"n": restricted, "leaks": 0}


def test_eval_names_a_broken_questions_file(tmp_path, evident_here):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    result = evident_here("eval", str(path))
    assert result.returncode == 1 and "q.jsonl:2" in result.stderr


def test_conversations_split_into_two_fixed_halves_by_their_id():
    questions = [{"id": f"q{n}{t}", "conv_id": f"c{n}", "turn": t} for n in range(40) for t in (1, 2)]
    tune, holdout = in_split(questions, "tune"), in_split(questions, "holdout")
    assert len(tune) + len(holdout) == len(questions) and tune and holdout
    assert {q["conv_id"] for q in tune}.isdisjoint({q["conv_id"] for q in holdout})  # a conversation stays whole
    assert all(split_of(q["conv_id"]) == "tune" for q in tune) and in_split(questions, None) == questions
    with pytest.raises(ValueError, match="'train'"):
        in_split(questions, "train")


def test_eval_compares_the_conversation_state_with_the_baseline_on_one_half(sample_corpus, settings, tmp_path,
                                                                             evident_here):
    runbook = next(f for f in facts_table() if f["Kind"] == "rare error code")["Expected URL"]
    turns = [("What does the error TS-E4471 mean?", 1), ("and how do I fix it?", 2)]
    path = tmp_path / "conversation.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"t{turn}", "conv_id": "c1", "turn": turn, "question": text,
                                          "completed_question": text, "lang": "en", "gold_urls": [runbook],
                                          "answer_source": "passage"}) for text, turn in turns), encoding="utf-8")
    for mode in ("state", "prev-question"):
        result = evident_here("eval", str(path), "--field", "question", "--conversation", mode, "--json",
                         env=index_env(settings))
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["p_at_1"] == 1.0 and report["by_split"] == {split_of("c1"): report["by_split"][split_of("c1")]}
    other = "holdout" if split_of("c1") == "tune" else "tune"
    for split, n in ((split_of("c1"), 2), (other, 0)):
        result = evident_here("eval", str(path), "--split", split, "--json", env=index_env(settings))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["n"] == n


def test_eval_misses_say_what_each_list_and_prior_added_to_the_gold_and_the_first_page(sample_corpus, settings,
                                                                                        tmp_path, evident_here):
    facts = [f for f in facts_table() if f["Visible to"] == "everyone"]
    asked, other = facts[0], next(f for f in facts if f["Expected URL"] != facts[0]["Expected URL"])
    lines = [{"id": "hit", "conv_id": "c1", "turn": 1, "question": asked["Query"],
              "gold_urls": [asked["Expected URL"]]},
             {"id": "wrong", "conv_id": "c2", "turn": 1, "question": asked["Query"],
              "gold_urls": [other["Expected URL"]]},
             {"id": "nowhere", "conv_id": "c3", "turn": 1, "question": "TS-E4471",
              "gold_urls": ["https://nowhere.example.org/page"]}]
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in lines), encoding="utf-8")
    result = evident_here("eval", str(path), "--field", "question", "--misses", "--json", env=index_env(settings))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["n"] == 3 and report["p_at_1"] == round(1 / 3, 4)  # the report's own fields stay
    missed = {m["id"]: m for m in report["misses"]}
    assert set(missed) == {"wrong", "nowhere"}
    wrong = missed["wrong"]
    assert wrong["question"] == asked["Query"] and wrong["gold"]["url"] == other["Expected URL"]
    assert first_gold_rank([wrong["first"]["url"]], [asked["Expected URL"]]) == 1  # the page the words name
    lists = wrong["first"]["contributions"]
    assert "bm25_own_words" in lists and any(name.startswith("dense_") for name in lists)
    pages = [wrong["first"], missed["nowhere"]["first"], *([wrong["gold"]] if wrong["gold"]["contributions"] else [])]
    for page in pages:  # the parts add up to the score shown
        assert sum(page["contributions"].values()) == pytest.approx(page["score"], abs=1e-3)
    assert missed["nowhere"]["gold"] == {"url": "https://nowhere.example.org/page", "rank": None, "score": 0.0,
                                         "contributions": {}}
    table = format_misses(report["misses"])
    assert f"miss wrong (conversation c2, turn 1): {asked['Query']}" in table and "bm25_own_words +" in table


@pytest.mark.parametrize("fusion, server_side, rerank", [("minmax", False, True), ("rrf", False, False),
                                                         ("merge", False, False), ("minmax", True, False)])
def test_an_explained_search_keeps_parts_that_add_up_to_each_page_score(sample_corpus, searcher, settings,
                                                                         fusion, server_side, rerank):
    config = dataclasses.replace(settings, search=dataclasses.replace(settings.search, server_side=server_side))
    plain = searcher.search(SearchRequest(query="buoy", fusion=fusion))
    reranker = _PrefersTitle(plain.hits[1].title) if rerank else None
    explaining = Searcher(config, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon,
                          reranker=reranker)
    history = [Turn("Which buoy failed?", [{"url": plain.hits[2].url, "title": plain.hits[2].title}])]
    # every page the follow-up finds, so the pages the carried "failed" matches are among them whatever else the
    # session's index holds by then (other modules' pages about buoys)
    response = explaining.search(SearchRequest(query="and the buoy?", fusion=fusion, history=history, explain=True,
                                               k=MAX_K))
    assert not explaining.search(SearchRequest(query="buoy", fusion=fusion)).contributions  # only when asked
    for hit in response.hits:
        assert sum(response.contributions[hit.url].values()) == pytest.approx(hit.score, abs=1e-5), hit.url
    named = {name for parts in response.contributions.values() for name in parts}
    lists = ({"fused_in_opensearch"} if server_side
             else {"merge": {"view_merge"}}.get(fusion, {"bm25_own_words", "bm25_carried"}))
    assert lists | {"shown_page_prior"} | ({"rerank"} if rerank else set()) <= named
    assert any(name.startswith("dense_") for name in named) is (fusion in ("minmax", "rrf") and not server_side)


def test_an_explained_german_question_books_the_english_page_to_the_translated_reading(sample_corpus, searcher):
    fact = next(f for f in facts_table() if f["Kind"] == "German question, English page")
    response = searcher.search(SearchRequest(query=fact["Query"], explain=True))
    assert response.hits[0].url == fact["Expected URL"]
    parts = response.contributions[fact["Expected URL"]]
    assert parts.get("bm25_translated_en", 0) > 0 and "bm25" not in parts  # BM25's share, by the reading that scored
    assert sum(parts.values()) == pytest.approx(response.hits[0].score, abs=1e-5)


@pytest.fixture
def gated(stores, settings, searcher, sample_corpus):
    """An alias of its own holding a copy of the sample corpus, a Searcher on it, and a question its first
    result answers."""
    from core.index import init_index
    from evident.evaluation import searcher_on
    from tests.conftest import TEST_ALIAS

    alias = f"{TEST_ALIAS}_gate"  # not "<alias>-...", which the session alias's index template would claim
    scoped = dataclasses.replace(settings, opensearch=dataclasses.replace(settings.opensearch, index_alias=alias))
    init_index(stores, scoped)
    try:
        stores.reindex(body={"source": {"index": settings.opensearch.index_alias}, "dest": {"index": alias}},
                       refresh=True, wait_for_completion=True)
        fact = next(f for f in facts_table() if f["Kind"] == "rare error code")
        questions = [{"id": "q1", "completed_question": fact["Query"], "question": fact["Query"],
                      "gold_urls": [fact["Expected URL"]]}]
        yield scoped, searcher_on(searcher, alias), questions
    finally:
        stores.indices.delete(index=f"{alias}-*")
        stores.indices.delete_index_template(name=alias)


def test_a_reindex_gate_refuses_an_index_that_loses_p_at_1_and_swaps_one_that_keeps_it(stores, gated):
    from core.index import reindex
    from evident.evaluation import reindex_gate

    scoped, on_alias, questions = gated
    alias, gold = scoped.opensearch.index_alias, questions[0]["gold_urls"][0]
    old = sorted(stores.indices.get_alias(name=alias))
    gate = reindex_gate(on_alias, questions, margin=0.01)

    def losing_the_gold_page(new_index: str):  # the new index lacks the page the question needs
        stores.delete_by_query(index=new_index, body={"query": {"term": {"page_url": gold}}}, refresh=True)
        return gate(new_index)

    refused = reindex(stores, scoped, losing_the_gold_page)
    assert not refused["swapped"] and refused["gate"] == {"questions": 1, "p_at_1_current": 1.0, "p_at_1_new": 0.0,
                                                          "margin": 0.01}
    assert sorted(stores.indices.get_alias(name=alias)) == old and not stores.indices.exists(index=refused["to"])
    kept = reindex(stores, scoped, gate)
    assert kept["swapped"] and kept["gate"]["p_at_1_new"] == kept["gate"]["p_at_1_current"] == 1.0
    assert list(stores.indices.get_alias(name=alias)) == [kept["to"]] and not stores.indices.exists(index=old[0])


def test_out_of_corpus_leaves_out_a_question_whose_gold_page_or_a_page_answering_it_elsewhere_the_index_holds(
        sample_corpus, stores, settings, tmp_path):
    from evident.evaluation import answered_elsewhere, out_of_corpus

    held = stores.search(index=settings.opensearch.index_alias, body={"size": 1, "query": {"match_all": {}}})
    page = held["hits"]["hits"][0]["_source"]["url"]
    questions = [{"id": "own", "question": "asked here", "gold_urls": [page]},
                 {"id": "generic", "question": "asked of another wiki", "gold_urls": ["https://elsewhere.example/a"]},
                 {"id": "foreign", "question": "only the other wiki's", "gold_urls": ["https://elsewhere.example/b"]}]
    found = tmp_path / "answered-elsewhere.jsonl"
    found.write_text(json.dumps({"file": "x.jsonl", "id": "generic", "question": "asked of another wiki",
                                 "answered_by": page, "page_says": "the same policy"}) + "\n", encoding="utf-8")
    kept, left_out = out_of_corpus(stores, settings.opensearch.index_alias, questions, answered_elsewhere(found))
    assert [q["id"] for q in kept] == ["foreign"] and left_out == ["own", "generic"]
    assert answered_elsewhere(tmp_path / "none.jsonl") == {}
    found.write_text(json.dumps({"id": "generic", "question": "asked of another wiki"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"answered-elsewhere\.jsonl: entry 1 needs the strings id, question and "
                                         r"answered_by"):
        answered_elsewhere(found)


def test_each_page_said_to_answer_elsewhere_names_a_question_of_a_file_of_ours_or_the_bench():
    from evident.evaluation import ANSWERED_ELSEWHERE, answered_elsewhere, load_questions

    rows = load_questions(ANSWERED_ELSEWHERE)
    assert rows and all(set(row) == {"file", "id", "question", "answered_by", "page_says"} for row in rows)
    assert len(answered_elsewhere()) == len(rows)  # one page per question
    harborlane = {(q["id"], q["question"]) for q in load_questions(
        ANSWERED_ELSEWHERE.parent / "harborlane" / "harborlane-conversations.jsonl")}
    assert {(r["id"], r["question"]) for r in rows if r["file"] == "harborlane-conversations.jsonl"} <= harborlane
