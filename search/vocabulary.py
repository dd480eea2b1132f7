"""``CorpusWords``: which words and phrases the indexed corpus holds, so a translation takes the senses it uses.

A dictionary lists a word's senses best first for language at large ("bearbeiten": processing, machining,
editing; "Seite": side, quarter, ..., page), not for this intranet. A sense no evidence holds can find
nothing, and searching it wastes the slot of one that could: ``query.translations`` keeps the best senses
the corpus holds. One ``_msearch`` asks for the words not yet known (per word a ``match_phrase`` on the
language's analyzed context, so "editing" counts where "edited" stands, stopped at the first evidence that
holds it); answers are kept per caller's read groups, because which words restricted pages hold is theirs
to know.
"""
from __future__ import annotations

from opensearchpy import OpenSearch

from search.cache import ExpiringCache
from search.retrievers import ANALYZED_LANGUAGES, acl_filter

# A word learned present or absent is believed this long: a page ingested meanwhile may bring a sense in,
# and ten minutes are short against how slowly a wiki's vocabulary changes.
KNOWN_SECONDS = 600
KNOWN_WORDS = 50_000  # words remembered before the oldest half is forgotten (a few MB)


class CorpusWords:
    """Configuration-only init; ``present`` asks OpenSearch only for words it does not know yet."""

    def __init__(self, client: OpenSearch, index: str):
        self.client = client
        self.index = index
        self._known: ExpiringCache[tuple[str, str, tuple[str, ...]], bool] = ExpiringCache(KNOWN_SECONDS, KNOWN_WORDS)

    def present(self, words: list[str], lang: str, principals: list[str]) -> set[str]:
        """The ``words`` that evidence of the corpus holds, as the caller (``principals``) may read it."""
        groups = tuple(sorted(principals))
        known = {key[0]: held for key, held in self._known.fresh((w, lang, groups) for w in words).items()}
        unknown = [w for w in dict.fromkeys(words) if w not in known]
        found = {w for w, held in known.items() if held}
        if unknown:
            asked = self._ask(unknown, lang, principals)
            found |= asked
            self._known.store({(w, lang, groups): w in asked for w in unknown})
        return found

    def _ask(self, words: list[str], lang: str, principals: list[str]) -> set[str]:
        """One ``_msearch``: per word, does any evidence the caller may read hold it (stopping at the first)."""
        field = f"context.{lang}" if lang in ANALYZED_LANGUAGES else "context"
        acl = acl_filter(principals)
        lines: list[dict] = []
        for word in words:
            # As a phrase: a compound's translation ("status page") and a word the analyzer splits ("kinder-ich")
            # are held where their words stand together, not where one of them stands.
            lines += [{}, {"size": 0, "terminate_after": 1, "track_total_hits": True,
                           "query": {"bool": {"must": {"match_phrase": {field: word}}, "filter": acl}}}]
        answers = self.client.msearch(index=self.index, body=lines)["responses"]
        return {word for word, answer in zip(words, answers) if answer.get("hits", {}).get("total", {}).get("value")}
