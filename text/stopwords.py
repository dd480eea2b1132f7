"""Stop words, and the one rule deciding which tokens of a text are content words.

``stopwords(lang)`` is spaCy's list of the language (``spacy.lang.<xx>.stop_words``, lowercased)
plus the lemmas of its auxiliary verbs, so that a lemma ("sein", "be") is caught as well as its
forms; empty for a language spaCy has no list for.

``is_stop`` and ``content_words``: a token is a stop word when its surface form or its lemma is
listed. (spaCy's German list holds nouns too, "Jahr", "Tag": keeping them as content words when
capitalized helps questions, where ``search.query`` does so, but lowered P@1 on the raw follow-ups of
the bench's ``conversations.jsonl`` from 0.657 to 0.648 when applied to the keyword view, so the
keyword view keeps the list as it is.)
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import lru_cache

from text.langcode import normalize_lang
from text.lemmas import Token

__all__ = ["stopwords", "is_stop", "content_words"]

_AUXILIARY_LEMMAS = {
    "en": ("be", "have", "do", "will", "shall", "can", "may", "must"),
    "de": ("sein", "haben", "werden", "können", "müssen", "sollen", "wollen", "dürfen", "mögen"),
    "es": ("ser", "estar", "haber", "tener", "poder", "deber"),
    "fr": ("être", "avoir", "pouvoir", "devoir"),
    "it": ("essere", "avere", "potere", "dovere"),
    "nl": ("zijn", "hebben", "worden", "kunnen", "moeten", "zullen"),
    "pt": ("ser", "estar", "ter", "haver", "poder", "dever"),
}
@lru_cache(maxsize=64)
def stopwords(lang: str) -> frozenset[str]:
    """spaCy's stop words of a language (lowercase), plus the lemmas of its auxiliaries; empty if unknown."""
    lang = normalize_lang(lang)
    if not lang.isalpha():
        return frozenset()
    try:
        words = importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS
    except ImportError:  # no list for this language (or no spaCy)
        return frozenset()
    return frozenset({w.lower() for w in words} | set(_AUXILIARY_LEMMAS.get(lang, ())))


def is_stop(token: Token, lang: str, stop: frozenset[str] | None = None) -> bool:
    """True when the token is a stop word of ``lang``, by its surface form or its lemma. ``stop``: the list to use instead of ``stopwords(lang)``
    (e.g. two languages' lists together)."""
    low = token.text.lower()
    stop = stopwords(lang) if stop is None else stop
    return low in stop or token.lemma in stop or low.rstrip(".") in stop


def content_words(tokens: Iterable[Token], lang: str, stop: frozenset[str] | None = None) -> list[Token]:
    """The tokens that are neither punctuation nor stop words (``is_stop``), in order."""
    return [t for t in tokens if t.kind != "punct" and not is_stop(t, lang, stop)]
