"""Stop words, and the one rule deciding which tokens of a text are content words.

``stopwords(lang)`` is spaCy's list of the language (``spacy.lang.<xx>.stop_words``, lowercased)
plus the lemmas of its auxiliary verbs, so that a lemma ("sein", "be") is caught as well as its
forms; empty for a language spaCy has no list for.

``is_stop`` and ``content_words``: a token is a stop word when its surface form or its lemma is
listed. (spaCy's German list holds nouns too, "Jahr", "Tag": keeping them as content words when
capitalized helps questions, where ``search.query`` does so, but lowered P@1 on the bench's raw
follow-ups when applied to the keyword view, so the keyword view keeps the list as it is; CHANGELOG.md,
2026-11-25.)
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from functools import lru_cache

from text.langcode import normalize_lang
from text.lemmas import Token

__all__ = ["stopwords", "is_stop", "content_words", "without_analyzer_stop_words", "without_pronoun_i"]

_LETTERS = re.compile(r"[\W_]+")  # what is not a letter or digit, around a word ("it?", "(the")
_AUXILIARY_LEMMAS = {
    "en": ("be", "have", "do", "will", "shall", "can", "may", "must"),
    "de": ("sein", "haben", "werden", "können", "müssen", "sollen", "wollen", "dürfen", "mögen"),
    "es": ("ser", "estar", "haber", "tener", "poder", "deber"),
    "fr": ("être", "avoir", "pouvoir", "devoir"),
    "it": ("essere", "avere", "potere", "dovere"),
    "nl": ("zijn", "hebben", "worden", "kunnen", "moeten", "zullen"),
    "pt": ("ser", "estar", "ter", "haver", "poder", "dever"),
}
# The stop words of Lucene's English analyzer (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), the one the index's
# ``.en`` fields use; the other languages' analyzers in the index template drop none.
ANALYZER_STOP_WORDS = {"en": frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split())}


def without_analyzer_stop_words(text: str, lang: str) -> str:
    """``text`` without the words its language's search analyzer drops (``ANALYZER_STOP_WORDS``), the rest
    as written (a word keeps its punctuation, so a field's own tokenizer still reads "HVX-4.1" whole); the
    text as it is when nothing else is left."""
    stop = ANALYZER_STOP_WORDS.get(normalize_lang(lang), frozenset())
    kept = [word for word in text.split() if _LETTERS.sub("", word.lower()) not in stop]
    return " ".join(kept) or text


def without_pronoun_i(text: str) -> str:
    """An English ``text`` without the pronoun "I", written like the Roman numeral one of a title ("Part I"):
    few pages say "I", so its IDF runs high and "what do I need on my first day?" found "Part I" of a
    treatise first. "I" after a capitalized word that does not open the sentence is the numeral and is kept."""
    kept: list[str] = []
    opening, opened_by = True, False  # this word opens a sentence; the word before opened one
    for word in text.split():
        numeral = bool(kept) and not opened_by and kept[-1][:1].isupper()
        if _LETTERS.sub("", word) != "I" or numeral:
            kept.append(word)
        opening, opened_by = word[-1:] in ".?!:", opening
    return " ".join(kept) or text


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
