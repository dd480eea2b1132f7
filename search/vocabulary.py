"""``CorpusWords``: which words and phrases the indexed corpus holds, so a translation takes the senses it uses.

A dictionary lists a word's senses best first for language at large ("bearbeiten": processing, machining,
editing; "Seite": side, quarter, ..., page), not for this intranet. A sense no evidence holds can find
nothing, and searching it wastes the slot of one that could: ``query.translations`` keeps the best senses
the corpus holds. The words not yet known are asked in two steps:

- one ``_mtermvectors`` request reads each word's tokens in the language's analyzed context and how many
  evidence of the whole index hold each token (its document frequency). A word with a token no evidence holds
  is absent for every caller, and is not searched: most of what a translation proposes is such a word (the
  German compounds it tries for two English words: "reaktionszeit", "reaktionezeit", ...), and reading a
  term's frequency costs OpenSearch far less than a search does;
- one ``_msearch`` asks the rest as the caller may read the corpus: per word a ``match_phrase``, so "editing"
  counts where "edited" stands, stopped at the first evidence that holds it. The frequency counts every
  evidence, restricted and deleted ones too, so it can only rule a word out; whether the caller may read a
  page that holds it takes the search.

Answers are kept per caller's read groups, because which words restricted pages hold is theirs to know.
``written`` asks the first step alone, on the unstemmed ``context`` field: whether a word is written as it is,
not only a word of its stem (spelling's run-together readings need words, "probat" is only a stem).
"""
from __future__ import annotations

import logging

from opensearchpy import OpenSearch
from opensearchpy.exceptions import RequestError

from search.cache import ExpiringCache
from search.retrievers import ANALYZED_LANGUAGES, acl_filter

log = logging.getLogger(__name__)

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
        self._written: ExpiringCache[str, bool] = ExpiringCache(KNOWN_SECONDS, KNOWN_WORDS)

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

    def written(self, words: list[str]) -> set[str]:
        """The ``words`` some evidence of the index writes as they are (lower-cased, not stemmed: the ``context``
        field's tokens, by their term statistics alone). A stem is no word: the English analyzer reads both
        "probation" and "probat" as "probat", so a phrase search of "probat on" holds where "probation" stands.
        The term statistics count every evidence, restricted ones too, so this can only rule a word out and is
        kept for every caller alike; ``present`` says whether the caller may read it."""
        known = self._written.fresh(words)
        unknown = [w for w in dict.fromkeys(words) if w not in known]
        if unknown:
            kept = set(self._indexed(unknown, "context"))
            self._written.store({w: w in kept for w in unknown})
            known |= {w: w in kept for w in unknown}
        return {w for w in words if known[w]}

    def _ask(self, words: list[str], lang: str, principals: list[str]) -> set[str]:
        """The ``words`` some evidence the caller may read holds: those whose every token the index holds
        (``_indexed``), then one ``_msearch``, per word: does any such evidence hold it (stopping at the first)."""
        field = f"context.{lang}" if lang in ANALYZED_LANGUAGES else "context"
        words = self._indexed(words, field)
        if not words:
            return set()
        acl = acl_filter(principals)
        lines: list[dict] = []
        for word in words:
            # As a phrase: a compound's translation ("status page") and a word the analyzer splits ("kinder-ich")
            # are held where their words stand together, not where one of them stands.
            lines += [{}, {"size": 0, "terminate_after": 1, "track_total_hits": True,
                           "query": {"bool": {"must": {"match_phrase": {field: word}}, "filter": acl}}}]
        answers = self.client.msearch(index=self.index, body=lines)["responses"]
        return {word for word, answer in zip(words, answers) if answer.get("hits", {}).get("total", {}).get("value")}

    def _indexed(self, words: list[str], field: str) -> list[str]:
        """The ``words`` each of whose tokens in ``field`` some evidence of the index holds, by one
        ``_mtermvectors`` request (an artificial document per word, with the index's term statistics; the template
        has one shard, so they are the whole index's). A word without tokens (stop words alone), or one OpenSearch
        could not analyze, is kept: its search decides. An alias over several indices has no term statistics
        (OpenSearch refuses the request): every word is then searched."""
        docs = [{"doc": {field.split(".")[0]: word}, "fields": [field], "term_statistics": True, "positions": False,
                 "offsets": False, "payloads": False, "field_statistics": False} for word in words]
        try:
            answers = self.client.mtermvectors(index=self.index, body={"docs": docs})["docs"]
        except RequestError as exc:
            log.info("corpus words: term statistics unavailable (%s); searching every word", exc)
            return words
        kept = []
        for word, answer in zip(words, answers):
            terms = answer.get("term_vectors", {}).get(field, {}).get("terms", {})
            if "error" in answer or all(stats.get("doc_freq", 0) > 0 for stats in terms.values()):
                kept.append(word)
        return kept
