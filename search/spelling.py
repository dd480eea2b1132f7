"""Spelling: a mistyped word of the question is searched beside the close word the corpus holds, a word run
together beside the two the corpus writes, and a compound the corpus lacks beside its parts.

BM25 meets a word only as written (or as its analyzer stems it), so "krankmeldng", "pasword" or "interupt"
find nothing, and the rest of the question decides alone. ``SpellingCorrector.run`` finds the question's
typos and their corrections; ``spelled`` puts each correction beside its typo in the text searched, and the
answer names them (``SearchResponse.spelling``), so the search box can say what else it searched for.

A word is taken for a typo when all of these hold:
- it is a word of ``MIN_WORD_CHARS`` letters or more, not a stop word, number, code or acronym;
- the language's word list counts it rare (``KNOWN_WORD_LOG_PROB``): a word the language knows ("Thailand",
  "saturation") is meant as written, even where no page uses it;
- no evidence the caller may read holds it, in any form its analyzer meets (``CorpusWords``).
Its correction is the closest word of the index's term dictionary (OpenSearch's term suggester, at most one
edit in a short word, two in a long one, and at least ``MIN_SIMILARITY`` alike) that evidence the caller may
read holds: the suggester reads every page's words, so each suggestion is confirmed under the caller's ACL
before a restricted page's word can show in the answer. A short word whose closest words are less alike ("limt":
"limit", "list" and "lint" alike) is searched as typed; the question's other words find its page.

A German compound no evidence the caller may read holds ("Verpflegungspauschale", where the page says
"Verpflegungsmehraufwand" and "Pauschale"; "Hochzeitsurlaub", where it lists "Hochzeit" under "Sonderurlaub")
is searched beside its two words as the dictionary splits them (``Lexicon.split_compound``; a combining form
such as "Hochzeits-" as the noun it joins), those of them the corpus holds: a compound is one token to BM25, so
a page using either word alone or in another compound is otherwise not met. A word the language's word list
counts common (``KNOWN_WORD_LOG_PROB``) is taken as written: split, an inflected word gives false parts
("laufenden": lauf, enden). So "Ab wann brauche ich eine Krankschreibung vom Arzt?" finds its page. The head is
taken as the list has it ("kranken"), not as written in the compound ("krank"), which lost that question. A split
can also add words every page has ("Arbeitsstunden": "arbeit" and "stunden", translated "work" and "hours").

A word written together that the caller's corpus writes apart, or with a hyphen, in one way only ("oncall": "on
call" where pages say "on-call"; "passwordmanager", "codefreeze", "checkin") is searched beside the two words,
before the suggester is asked, which takes "checkin" for "checking". "passwordmanager name" finds the security
guidelines first, "when is the codefreeze" the weekly syncs.

Written here because the term suggester proposes close words but does not tell a typo from a rare word, a
word the corpus holds in another form, or a word only restricted pages hold, and OpenSearch has no suggester
that breaks a word in two; no kept library does. How each check works and why: docs/ranking.md, "Spelling, words
run together, German compounds"; the figures they moved (most on the questions written in other words than the
pages', where typos are): CHANGELOG.md, 2026-11-27.
"""
from __future__ import annotations

import re

from opensearchpy import OpenSearch

from search.cache import ExpiringCache
from search.lexicon import COMPOUNDING_LANGUAGES, Lexicon
from search.query import MIN_WORD_CHARS
from search.vocabulary import KNOWN_SECONDS, KNOWN_WORDS, CorpusWords
from text.detect import word_log_prob
from text.lemmas import Lemmatizer
from text.stopwords import stopwords

# Log probability below which the language's word list counts a word rare: a typo to check, or a compound to split.
# The lists (spacy-lookups-data) hold common misspellings too, below about -14 ("adress" -14.1, "responce" -15.6,
# "interupt" -16.0), and real words a corpus may lack above it ("attest" -13.5, "saturation" -13.1, "thailand"
# -12.4). Compounds a question brings are rare too ("Krankenschein" -15.0, "Verpflegungspauschale" -18.1), and
# inflected words, which split into false parts ("bestanden" -11.0, "laufenden": lauf|enden), are common. A
# threshold of its own for compounds (-12) won the verdict of one question, on one file, and no first page.
KNOWN_WORD_LOG_PROB = -14.0
ONE_EDIT_MAX_CHARS = 5  # words up to this long get one edit, longer ones two (as Lucene's "AUTO" fuzziness)
# The suggester's likeness (1 - edits / length, about): one edit in a word of five letters or more passes, two
# edits only in a word of ten or more; "limt" (0.75 to "limit" and to "list" alike) stays as typed.
MIN_SIMILARITY = 0.8
SUGGESTIONS = 3  # suggestions asked per word, best first: the first the caller may read is taken
# Rare words checked per question, the first ones: a longer list is a pasted text (a stack trace, a paragraph),
# where one typo matters little: 500 random words took the stage 0.9 s unbounded, 35 ms with the bound.
MAX_CHECKED_WORDS = 16
SUGGEST_FIELD = "context"  # the evidence's words as written (lower-cased), with its title and headings
MAX_JOINED_WORDS = 4  # absent words asked about as run-together ones: a typed question has one or two
# A longer word is no two words typed together but a pasted string, and each letter would cost a phrase query.
MAX_JOINED_CHARS = 30


def rare_words(lemmatizer: Lemmatizer, text: str, lang: str) -> list[str]:
    """The plain words of ``text`` that the language's word list counts rare (``KNOWN_WORD_LOG_PROB``), stop words
    left out, lower-cased, each once: what may be a typo or a compound to split. ``text`` is analyzed once for both."""
    stop = stopwords(lang)
    words = [t.text.lower() for t in lemmatizer.analyze(text, lang) if t.kind == "word"]
    return list(dict.fromkeys(w for w in words if w.isalpha() and w not in stop
                              and word_log_prob(w, lang) < KNOWN_WORD_LOG_PROB))


def typo_candidates(rare: list[str]) -> list[str]:
    """Of the ``rare`` words (``rare_words``), those that may be typos by their form alone, long enough
    (``MIN_WORD_CHARS``): the first ``MAX_CHECKED_WORDS``."""
    return [w for w in rare if len(w) >= MIN_WORD_CHARS][:MAX_CHECKED_WORDS]


def two_word_readings(words: list[str]) -> dict[str, list[str]]:
    """Each of the first ``MAX_JOINED_WORDS`` words of at most ``MAX_JOINED_CHARS`` letters split in two at every
    place ("oncall": "o ncall", "on call", "onc all", "onca ll", "oncal l"), for the corpus to say which it
    writes."""
    return {word: [f"{word[:i]} {word[i:]}" for i in range(1, len(word))]
            for word in [w for w in words if len(w) <= MAX_JOINED_CHARS][:MAX_JOINED_WORDS]}


def compound_parts(lexicon: Lexicon, words: list[str], lang: str, target: str) -> dict[str, list[str]]:
    """The two words of each of ``words`` that is a compound (as ``lexicon`` toward ``target`` splits it), stop
    words left out; none for a word whose head is a verb's prefix (``MIN_WORD_CHARS``)."""
    stop = stopwords(lang)
    return {word: [p for p in (split.page_word, split.tail) if p not in stop] for word in words
            if (split := lexicon.split_compound(word, lang, target)) and len(split.written_head) >= MIN_WORD_CHARS}


def spelled(text: str, corrections: dict[str, str]) -> str:
    """``text`` with each corrected word followed by its correction ("krankmeldng krankmeldung ab wann"): the
    typed word is kept, so nothing the user wrote is lost where it does match."""
    for typed, meant in corrections.items():
        text = re.sub(rf"(?<!\w)({re.escape(typed)})(?!\w)", rf"\1 {meant}", text, flags=re.IGNORECASE)
    return text


def suggest_body(words: list[str]) -> dict:
    """One search that asks the term suggester for every word (no hits)."""
    return {"size": 0, "suggest": {
        f"w{i}": {"text": word, "term": {"field": SUGGEST_FIELD, "suggest_mode": "missing", "size": SUGGESTIONS,
                                         "max_edits": 1 if len(word) <= ONE_EDIT_MAX_CHARS else 2,
                                         "prefix_length": 1, "min_word_length": MIN_WORD_CHARS}}
        for i, word in enumerate(words)}}


def suggestions(response: dict, words: list[str]) -> dict[str, list[tuple[str, float]]]:
    """Each word's suggestions and their likeness, best first, from ``suggest_body``'s answer."""
    suggested = response.get("suggest", {})
    return {word: [(option["text"], option["score"]) for entry in suggested.get(f"w{i}", [])
                   for option in entry["options"]]
            for i, word in enumerate(words)}


def close_words(suggested: dict[str, list[tuple[str, float]]], likeness: float) -> dict[str, list[str]]:
    """Each word's suggestions (``suggestions``) at least ``likeness`` alike, best first."""
    return {word: [text for text, score in options if score >= likeness] for word, options in suggested.items()}


class SpellingCorrector:
    """Configuration-only init; ``run`` asks OpenSearch only when the question has a rare word."""

    def __init__(self, client: OpenSearch, index: str, corpus_words: CorpusWords, lexicon: Lexicon | None = None):
        self.client = client
        self.index = index
        self.corpus_words = corpus_words
        self.lexicon = lexicon  # splits the compounds of its languages; none: no compound is split
        # Each word's term suggestions, whoever asked: the suggester reads every page's words, and what the caller
        # may read of them is checked after (``CorpusWords``), so a question typed again asks nothing.
        self._suggested: ExpiringCache[str, list[tuple[str, float]]] = ExpiringCache(KNOWN_SECONDS, KNOWN_WORDS)

    def run(self, text: str, lang: str, principals: list[str], lemmatizer: Lemmatizer) -> dict[str, str]:
        """The typos, run-together words and absent compounds of ``text`` (lower-cased) and the words searched
        for each, as the caller may read the corpus."""
        targets = sorted(target for source, target in self.lexicon.pairs
                         if source == lang and source in COMPOUNDING_LANGUAGES) if self.lexicon else []
        found = rare_words(lemmatizer, text, lang)
        rare = typo_candidates(found)
        compounds = found[:MAX_CHECKED_WORDS] if targets else []
        if not rare and not compounds:
            return {}
        held = self.corpus_words.present(list(dict.fromkeys(rare + compounds)), lang, principals)
        absent = [w for w in dict.fromkeys(rare + compounds) if w not in held]
        if not absent:
            return {}
        readings = self.written_apart(two_word_readings(absent))
        splits = compound_parts(self.lexicon, [w for w in absent if w in compounds], lang, targets[0]) \
            if self.lexicon and targets else {}
        # One presence check for both: each word's two-word readings and its compound parts.
        written = self.corpus_words.present([*(p for found in readings.values() for p in found),
                                             *(p for found in splits.values() for p in found)], lang, principals)
        corrections = {word: apart[0] for word, found in readings.items()
                       if len(apart := [p for p in found if p in written]) == 1}
        typos = [w for w in rare if w in absent and w not in corrections]
        corrections |= self.typos(lang, principals, typos) if typos else {}
        return corrections | {word: " ".join(p for p in found if p in written) for word, found in splits.items()
                              if word not in corrections and written.intersection(found)}

    def written_apart(self, readings: dict[str, list[str]]) -> dict[str, list[str]]:
        """Each word's two-word readings whose both words the corpus writes as they are (``CorpusWords.written``):
        the presence check reads the analyzed field, where a stem stands for its words ("probaton" read as
        "probat on" held wherever "probation" stands)."""
        parts = list(dict.fromkeys(part for found in readings.values() for apart in found for part in apart.split()))
        written = self.corpus_words.written(parts) if parts else set()
        return {word: [r for r in found if all(part in written for part in r.split())]
                for word, found in readings.items()}

    def typos(self, lang: str, principals: list[str], absent: list[str]) -> dict[str, str]:
        """The close word the caller may read for each ``absent`` word, where there is one."""
        suggested = self.suggested(absent)
        options = close_words(suggested, MIN_SIMILARITY)
        readable = self.corpus_words.present([o for found in options.values() for o in found], lang, principals)
        return {word: next(o for o in found if o in readable) for word, found in options.items()
                if any(o in readable for o in found)}

    def suggested(self, words: list[str]) -> dict[str, list[tuple[str, float]]]:
        """The term suggester's options for each of ``words`` (``suggestions``): those not kept yet asked in one
        search, then kept for ``KNOWN_SECONDS``."""
        known = self._suggested.fresh(words)
        unknown = [word for word in dict.fromkeys(words) if word not in known]
        if unknown:
            asked = suggestions(self.client.search(index=self.index, body=suggest_body(unknown)), unknown)
            self._suggested.store(asked)
            known |= asked
        return {word: known[word] for word in words}
