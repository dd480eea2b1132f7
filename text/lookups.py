"""The one reader of spacy-lookups-data: lemma tables, word frequencies and part-of-speech lemma lists.

``read_table(lang, name)`` reads ``<lang>_<name>.json.gz`` from the package (an empty dict when the
package or the table is missing). Its callers keep what they read: the lemmatizer its lemma table,
language detection its word model, and this module the part-of-speech lemma lists.
"""
from __future__ import annotations

import importlib.resources
from functools import lru_cache

from text.langcode import normalize_lang

__all__ = ["read_table", "lemma_of", "pos_lemmas", "verb_lemmas"]


def read_table(lang: str, name: str) -> dict:
    """The table ``name`` of a language, or {}: "lemma_lookup" (word form -> lemma, or a list whose first
    item is the lemma), "lemma_index" (part of speech -> lemmas), "lexeme_prob" (word -> log probability)."""
    try:
        import srsly

        path = importlib.resources.files("spacy_lookups_data") / "data" / f"{lang}_{name}.json.gz"
        return srsly.read_gzip_json(str(path)) if path.is_file() else {}
    except Exception:  # the package is missing: no table
        return {}


def lemma_of(value: object) -> str | None:
    """The lemma in a value of a "lemma_lookup" table (a string, or a list whose first item is the lemma)."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) and value else None


@lru_cache(maxsize=16)
def _lemma_index(lang: str) -> dict:
    return read_table(lang, "lemma_index")


@lru_cache(maxsize=64)
def pos_lemmas(lang: str, pos: str) -> frozenset[str]:
    """Lemmas listed under a part of speech ("noun", "verb", "adj", "adv") in the POS index of the
    language (en, es); empty for languages without one."""
    return frozenset(w.lower() for w in _lemma_index(normalize_lang(lang)).get(pos, ()))


@lru_cache(maxsize=16)
def verb_lemmas(lang: str) -> frozenset[str]:
    """Lemmas that are only verbs or adverbs, never nouns or adjectives, by the POS index (en, es).

    Key-phrase extraction keeps them out of noun phrases; empty for
    languages without an index (German marks nouns by capitals instead).
    """
    nominal = pos_lemmas(lang, "noun") | pos_lemmas(lang, "adj")
    return frozenset((pos_lemmas(lang, "verb") | pos_lemmas(lang, "adv")) - nominal)
