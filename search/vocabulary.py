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

import threading
import time

from opensearchpy import OpenSearch

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
        self._known: dict[tuple[str, str, tuple[str, ...]], tuple[bool, float]] = {}
        self._lock = threading.Lock()

    def present(self, words: list[str], lang: str, principals: list[str]) -> set[str]:
        """The ``words`` that evidence of the corpus holds, as the caller (``principals``) may read it."""
        groups = tuple(sorted(principals))
        now = time.monotonic()
        with self._lock:
            known = {w: self._known.get((w, lang, groups)) for w in dict.fromkeys(words)}
        unknown = [w for w, seen in known.items() if seen is None or now - seen[1] > KNOWN_SECONDS]
        found = {w for w, seen in known.items() if seen is not None and seen[0] and w not in unknown}
        if unknown:
            asked = self._ask(unknown, lang, principals)
            found |= asked
            with self._lock:
                if len(self._known) > KNOWN_WORDS:
                    for key in list(self._known)[: KNOWN_WORDS // 2]:
                        del self._known[key]
                self._known.update({(w, lang, groups): (w in asked, now) for w in unknown})
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
