"""The optional follow-up rewriter and the shared chat-completion call, against an OpenAI-compatible endpoint
served on loopback by the test (no LLM runs on this machine)."""
from __future__ import annotations

import dataclasses

import pytest

from core.llm import LLMError, chat_completion, chat_endpoint
from search.rewrite import QueryRewriter, load_rewriter
from core.settings import Settings

HISTORY = [("Wie beantrage ich Urlaub?", ["Urlaubsantrag", "Abwesenheiten im Portal"]),
           ("Und für Sonderurlaub?", ["Sonderurlaub bei Umzug"])]


def test_rewrites_the_last_question_from_the_earlier_turns(endpoint):
    url, requests, answer = endpoint
    answer["content"] = '<think>they mean the sick note</think>\n "Wer ist für Krankmeldungen zuständig?"\nWeil…'
    rewritten = QueryRewriter(url, "tiny", api_key="k").run("Wer ist dafür zuständig?", HISTORY)
    assert rewritten == "Wer ist für Krankmeldungen zuständig?"
    assert len(requests) == 1
    request = requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert request["body"]["model"] == "tiny"
    prompt = "\n".join(m["content"] for m in request["body"]["messages"])
    for question, titles in HISTORY:
        assert question in prompt and all(t in prompt for t in titles)
    assert prompt.index(HISTORY[0][0]) < prompt.index(HISTORY[1][0]) < prompt.index("Wer ist dafür zuständig?")


def test_no_history_no_request(endpoint):
    url, requests, _ = endpoint
    assert QueryRewriter(url, "tiny").run("Wie beantrage ich Urlaub?", []) == "Wie beantrage ich Urlaub?"
    assert requests == []


def test_failures_raise_and_name_the_endpoint(endpoint):
    with pytest.raises(LLMError, match=r"http://127\.0\.0\.1:9/v1/chat/completions"):
        QueryRewriter("http://127.0.0.1:9", "tiny", timeout=5).run("und dafür?", HISTORY)
    url, _, answer = endpoint
    answer["content"] = "<think>cut off by max_tokens"
    with pytest.raises(LLMError, match="gave no question"):
        QueryRewriter(url, "tiny").run("und dafür?", HISTORY)


def test_chat_completion_conventions(endpoint):
    assert chat_endpoint("http://llm.local:8000/") == "http://llm.local:8000/v1/chat/completions"
    assert chat_endpoint("http://x/v1") == "http://x/v1/chat/completions"
    assert chat_endpoint("http://x/v1/chat/completions") == "http://x/v1/chat/completions"
    url, requests, answer = endpoint
    answer["content"] = [{"type": "text", "text": "Hello"}, {"type": "text", "text": " there"}]
    assert chat_completion(url + "/v1/", "tiny", "", [{"role": "user", "content": "hi"}], 5,
                           temperature=0.0) == "Hello there"
    assert requests[0]["auth"] is None and requests[0]["body"]["temperature"] == 0.0


def test_off_unless_an_endpoint_is_configured_and_rewriting_is_on():
    settings = Settings()
    assert load_rewriter(settings) is None
    llm = dataclasses.replace(settings.llm, base_url="http://llm.local:8000", model="tiny", api_key="k")
    rewriter = load_rewriter(dataclasses.replace(settings, llm=llm))
    assert isinstance(rewriter, QueryRewriter)
    assert (rewriter.base_url, rewriter.model, rewriter.api_key) == ("http://llm.local:8000", "tiny", "k")
    assert load_rewriter(dataclasses.replace(settings, llm=dataclasses.replace(llm, rewrite_queries=False))) is None
