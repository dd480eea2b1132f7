"""``FieldTokens``: the tokens the index's own analyzers make of a text in each field, for ``flatten``.

A text is analyzed word by word: the template's analyzers split at whitespace before anything else and no
filter joins two words, so a text's tokens are its words' tokens. The words of a search not known yet are
asked in one ``_mtermvectors`` request (one artificial document per word, holding it in every field asked of
it; a subfield such as ``text.en`` reads its parent's value), and kept: most searches then send no request.
The template's fields search with the analyzer they index with, so these are the tokens a ``match`` searches.
"""
from __future__ import annotations

from collections import Counter

from opensearchpy import OpenSearch

from core.index import item_failure
from search.cache import ExpiringCache
from search.flatten import Analysis

# A word's tokens are believed this long: an alias moved to an index of another template may analyze anew.
KNOWN_SECONDS = 600
KNOWN_TOKENS = 50_000  # (field, word) pairs remembered before the oldest half is forgotten (a few MB)


class FieldTokens:
    """Configuration-only init; ``analysis`` asks OpenSearch only for the words it does not know yet."""

    def __init__(self, client: OpenSearch, index: str):
        self.client = client
        self.index = index
        self._known: ExpiringCache[tuple[str, str], dict[str, int]] = ExpiringCache(KNOWN_SECONDS, KNOWN_TOKENS)

    def analysis(self, pairs: list[tuple[str, str]]) -> Analysis:
        """The tokens and their counts of each (field, text)."""
        wanted = {(field, word) for field, text in pairs for word in text.split()}
        tokens = self._known.fresh(wanted)
        unknown = sorted(wanted - set(tokens))
        if unknown:
            asked = self._ask(unknown)
            tokens.update(asked)
            self._known.store(asked)
        out: Analysis = {}
        for field, text in pairs:
            counts: Counter[str] = Counter()
            for word in text.split():
                counts.update(tokens[(field, word)])
            out[(field, text)] = dict(counts)
        return out

    def _ask(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, int]]:
        """One ``_mtermvectors`` request: each word's tokens in each field asked of it."""
        fields_of: dict[str, list[str]] = {}
        for field, word in pairs:
            fields_of.setdefault(word, []).append(field)
        docs = [{"doc": {field.split(".")[0]: word for field in fields}, "fields": fields, "positions": False,
                 "offsets": False, "payloads": False, "term_statistics": False, "field_statistics": False}
                for word, fields in fields_of.items()]
        answers = self.client.mtermvectors(index=self.index, body={"docs": docs})["docs"]
        out: dict[tuple[str, str], dict[str, int]] = {}
        for (word, fields), answer in zip(fields_of.items(), answers):
            if "error" in answer:
                raise item_failure(answer["error"], f"OpenSearch could not analyze {word!r}")
            vectors = answer.get("term_vectors", {})
            for field in fields:
                terms = vectors.get(field, {}).get("terms", {})
                out[(field, word)] = {token: stats.get("term_freq", 1) for token, stats in terms.items()}
        return out
