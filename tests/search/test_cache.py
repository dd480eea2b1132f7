"""The answers the search stages keep of OpenSearch: believed for a while, bounded in number."""
from __future__ import annotations

import threading

import pytest

from search.cache import ExpiringCache, KeptVectors


class Clock:
    """A clock a test moves by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_value_is_believed_for_its_seconds_and_then_asked_again():
    clock = Clock()
    cache = ExpiringCache(seconds=10, size=100, clock=clock)
    cache.store({("page", "en"): True, ("seite", "de"): False})
    clock.now = 10
    assert cache.fresh([("page", "en"), ("seite", "de"), ("other", "en")]) == {("page", "en"): True,
                                                                                ("seite", "de"): False}
    clock.now = 10.5
    assert cache.fresh([("page", "en")]) == {}
    cache.store({("page", "en"): False})  # asked again: the new answer, believed from now on
    assert cache.fresh([("page", "en")]) == {("page", "en"): False}


def test_past_its_size_the_oldest_stored_half_is_forgotten():
    cache = ExpiringCache(seconds=10, size=4, clock=Clock())
    cache.store({word: word.upper() for word in "abcd"})
    cache.store({"a": "A again"})  # stored again: now the newest
    cache.store({"e": "E"})  # five held, over the size: at the next store the two oldest stored (b, c) go
    cache.store({"f": "F"})
    assert cache.fresh("abcdef") == {"a": "A again", "d": "D", "e": "E", "f": "F"}


def test_a_text_is_embedded_once_and_only_the_new_texts_of_a_call_are_embedded():
    embedded: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embedded.append(texts)
        return [[float(len(text))] for text in texts]

    vectors = KeptVectors(embed, size=100)
    assert vectors.of(["vpn", "vpn reset"]) == [[3.0], [9.0]]
    assert vectors.of(["vpn reset", "urlaub", "urlaub"]) == [[9.0], [6.0], [6.0]]
    assert embedded == [["vpn", "vpn reset"], ["urlaub"]]
    assert vectors.of(["urlaub", "vpn"]) == [[6.0], [3.0]] and len(embedded) == 2


def test_a_text_another_thread_is_embedding_is_waited_for_not_embedded_again():
    started, release = threading.Event(), threading.Event()
    embedded = []

    def embed(texts):
        embedded.append(list(texts))
        started.set()
        release.wait(5)
        return [[float(len(t))] for t in texts]

    vectors = KeptVectors(embed, size=100)
    background = threading.Thread(target=vectors.of, args=(["wann verfällt der resturlaub"],))
    background.start()
    assert started.wait(5)
    answers = []
    asking = threading.Thread(target=lambda: answers.append(vectors.of(["wann verfällt der resturlaub", "vpn"])))
    asking.start()
    asking.join(0.3)  # time to reach the text under way (an old cache would start embedding it a second time)
    release.set()
    asking.join(5)
    background.join(5)
    assert answers == [[[28.0], [3.0]]]
    assert embedded == [["wann verfällt der resturlaub"], ["vpn"]]  # the question once, by the first thread


def test_a_failed_embedding_reaches_every_caller_and_the_text_is_tried_again_later():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        if len(calls) == 1:
            raise RuntimeError("model not loaded")
        return [[1.0] for _ in texts]

    vectors = KeptVectors(embed, size=100)
    with pytest.raises(RuntimeError):
        vectors.of(["vpn"])
    assert vectors.of(["vpn"]) == [[1.0]] and len(calls) == 2
