"""A bilingual word list, so a question in one language also finds pages written in another.

all-MiniLM-L6-v2 is English-only and BM25 matches words, so "Wie viele Lerntage gibt es?"
cannot reach a page that says "learning days". The query's content words are looked up
in a dictionary and their translations searched beside them at a lower weight.

The dictionary is Ding's German-English list (Debian package ``trans-de-en``, file
``/usr/share/trans/de-en``), about 200,000 lines of the form
``Tag {m} | Tage {pl} :: day | days``: sub-entries aligned by ``|``, synonyms split by
``;``, grammar notes in braces, brackets and parentheses. One file gives both directions. The braces
after a head word name its class ("Gehalt {n}", "aus {prp}"), which tells how a compound unknown to the
list splits: at a noun, never at a preposition.

Lower-case abbreviations such as "/p./" are notes like upper-case ones, so "page /p./" is a word and "Seite" keeps
its sense "page" ("Statusseite" -> "status page").

Left out, because they lost turns on the bench (docs/ranking.md, "Tried and left out"; the figures in
CHANGELOG.md): more than 4 senses kept a word (``_KEPT_TRANSLATIONS``); a word's own spelling first among its
senses (it changes nothing and invites false friends, "Tag" -> "tag"); a name of capitalized words in parentheses
read as a further sense ("Tschechien :: Czechia (Czech Republic)": the carried "Tschechien" drew follow-ups back to
the Czech pages); the list's nouns as the word list of OpenSearch's ``dictionary_decompounder`` on the German
fields, so a page's compounds hold their parts ("Gehaltsrunde": gehalt, runde, and noise such as "halt"): at search
time the pieces of English questions' German translations matched German pages everywhere.
"""
from __future__ import annotations

import functools
import re
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from text.stopwords import stopwords

# Grammar notes, usage labels and abbreviations: upper-case ones ("/S./", "/EU/") and lower-case ones with a dot
# ("/p./"); a lower-case word between slashes without one is an alternative ("he/she/it"), not a note.
_NOTES = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|<[^>]*>|/[A-Z][\w.&-]*/|/[a-z][\w&-]*\.[\w.&-]*/|[…\"„“”‚‘’]")
_PLACEHOLDER = re.compile(r"\b(?:sth|sb|etw|jdn|jdm|jds|jd|so)\b\.?", re.IGNORECASE)
_WORD = re.compile(r"^\w[\w'-]*$")
# "Gehalt {n}", "aus {prp; +Dat.}": a one-word synonym and its word class, the first note after it
_TAGGED = re.compile(r"(\w+) \{(\w+)")
_NOUN_TAGS = {"m", "f", "n"}  # most compounds start with a noun: Gehalt|s|runde, not the verb gehalten
_FUNCTION_TAGS = {"prp", "adv", "conj", "art", "pron", "num"}  # none starts a compound: Aus|land, Ein|reiche
_SPACE = re.compile(r"\s+")
_MAX_WORDS = 3  # longer dictionary phrases are examples, not translations
_LINKS = ("", "s", "es", "n", "en", "e")  # German compound joints: Weiterbildung|s|budget, Lern|en|tag
_KEPT_TRANSLATIONS = 4  # translations kept per word, best first; further ones are rare senses
# A word's senses that count: the translations of a query word searched, and of each part of a split or hyphenated
# compound, combined with the other part's. The common senses, not every reading: one lowered every file and three
# gained nothing (CHANGELOG.md, 2026-11-28).
TRANSLATIONS_PER_TERM = 2
COMPOUNDING_LANGUAGES = frozenset({"de"})  # the languages whose unknown compounds are split (Ding's side is German)


def _clean(phrase: str) -> str:
    """A synonym without its grammar notes; empty when what is left is not plain words."""
    phrase = _SPACE.sub(" ", _PLACEHOLDER.sub(" ", phrase)).strip(" .,:!?-").lower()
    phrase = phrase[len("to "):] if phrase.startswith("to ") else phrase
    words = phrase.split()
    return phrase if 0 < len(words) <= _MAX_WORDS and all(_WORD.match(w) for w in words) else ""


def _synonyms(part: str) -> list[str]:
    return [w for w in map(_clean, _NOTES.sub(" ", part).split(";")) if w]


def _pairs(heads: list[str], tails: list[str]) -> list[str]:
    """A split compound's translations: the parts' best senses side by side (the first with the first, the
    second with the second), then every other pairing, for the corpus to confirm as a phrase ("Status|seite":
    "state side", "states quarter", ..., "status page")."""
    diagonal = list(zip(range(TRANSLATIONS_PER_TERM), range(TRANSLATIONS_PER_TERM)))
    every = sorted(((i, j) for i in range(len(heads)) for j in range(len(tails))), key=lambda ij: (sum(ij), ij))
    return [f"{heads[i]} {tails[j]}" for i, j in dict.fromkeys([*diagonal, *every])
            if i < len(heads) and j < len(tails)]


def _held_part(phrase: str, held: set[str], stop: set[str]) -> str:
    """The words of a translation the corpus holds ("education budget" of "further education budget"), when
    they are most of its content words; else none ("planen" is no translation of "die Ausgaben planen")."""
    content = [w for w in phrase.split() if w not in stop] or phrase.split()
    kept = [w for w in phrase.split() if w in held]
    return " ".join(kept) if 2 * sum(w in held for w in content) > len(content) else ""


class Compound(NamedTuple):
    """A German compound split in two: its head as the list has it, its tail, its head as written in it, and
    the word a page would write for its head ("Krankschreibung": kranken, schreibung, krank, kranken;
    "Hochzeitsurlaub": hochzeits, urlaub, hochzeits, hochzeit)."""

    head: str
    tail: str
    written_head: str
    page_word: str


class Lexicon:
    """Translations per language pair, best first; built once per process from a dictionary file."""

    def __init__(self, table: dict[tuple[str, str], dict[str, list[str]]],
                 prefixes: frozenset[str] = frozenset(), nouns: frozenset[str] = frozenset()):
        self.table = table
        self.prefixes = prefixes  # German stop words the list gives as function words: no part of a compound
        self.nouns = nouns  # German nouns, lower-cased: Gehalt|s|runde is the noun Gehalt, not the verb gehalten

    @property
    def pairs(self) -> set[tuple[str, str]]:
        return set(self.table)

    @classmethod
    def from_ding(cls, path: str | Path, source: str = "de", target: str = "en") -> Lexicon:
        """Read a Ding list; a translation's score is how often and how early the dictionary gives it."""
        scores: dict[tuple[str, str], dict[str, dict[str, float]]] = {
            (source, target): defaultdict(lambda: defaultdict(float)),
            (target, source): defaultdict(lambda: defaultdict(float)),
        }
        forward, backward = scores[(source, target)], scores[(target, source)]
        function_words: set[str] = set()
        nouns: set[str] = set()
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#") or " :: " not in line:
                    continue
                left, right = line.rstrip("\n").split(" :: ", 1)
                left_parts, right_parts = left.split(" | "), right.split(" | ")
                if len(left_parts) != len(right_parts):
                    # Later sub-entries (plurals, examples) do not line up; the head word and its senses do
                    left_parts, right_parts = left_parts[:1], right_parts[:1]
                for word, tag in (m.groups() for m in map(_TAGGED.match, left_parts[0].split("; ")) if m):
                    if tag in _NOUN_TAGS and word[0].isupper():  # the head sub-entry names the word class
                        nouns.add(word.lower())
                    elif tag in _FUNCTION_TAGS and word.islower():
                        function_words.add(word)
                for rank, (lp, rp) in enumerate(zip(left_parts, right_parts)):
                    lw, rw = _synonyms(lp), _synonyms(rp)
                    # The head sub-entry and the first synonyms are the common senses.
                    weight = 1.0 / (1 + rank)
                    for i, a in enumerate(lw):
                        for j, b in enumerate(rw):
                            # Queries are looked up a word at a time, so only single words are keys.
                            if " " not in a:
                                forward[a][b] += weight / (1 + i + j)
                            if " " not in b:
                                backward[b][a] += weight / (1 + i + j)
        table = {pair: {word: [t for t, _ in sorted(options.items(), key=lambda kv: -kv[1])[:_KEPT_TRANSLATIONS]]
                        for word, options in words.items()}
                 for pair, words in scores.items()}
        return cls(table, frozenset(function_words & stopwords(source)), frozenset(nouns))

    def lookup(self, word: str, source: str, target: str) -> list[str]:
        """Translations of one word, best first; a German compound unknown as a whole is split in two, and a
        hyphenated word ("Pendler-Zuschuss", "4.1.2-Bericht") unknown as a whole is translated part by part."""
        words = self.table.get((source, target), {})
        word = word.lower()
        if word in words:
            return words[word]
        if "-" in word.strip("-"):
            return self._hyphenated(word.strip("-").split("-"), source, target)
        if word in self.table.get((target, source), {}):
            return [word]  # a loanword ("Support", "Feedback"): meant as in its own language, not split
        split = self.split_compound(word, source, target)
        return _pairs(words[split.head], words[split.tail]) if split else []

    def knows(self, word: str) -> bool:
        """Whether the list has the word in any of its languages: as written, as a compound of two of its words, or
        a hyphenated word of its words ("Czechia", "Lerntage" as "Lern|tag", "EDI-Bug")."""
        return any(self.lookup(word, source, target) for source, target in self.table)

    def split_compound(self, word: str, source: str, target: str) -> Compound | None:
        """A German compound's two words as the list has them ("verpflegungspauschale": verpflegung, pauschale),
        the longest tail first (Weiterbildungs|budget before Weiter|...), cut at any letter: both parts must be
        words the list knows, and a head the list holds as a prefix is none; none for another language, or when
        no split gives two words the list knows. The word itself may be known or not."""
        if source not in COMPOUNDING_LANGUAGES:
            return None
        words = self.table.get((source, target), {})
        word = word.lower()
        for cut in range(1, len(word)):
            head, tail = word[:cut], word[cut:]
            if tail not in words:
                continue
            if head in self.prefixes:
                continue  # Aus|land, Ein|reiche: a preposition or particle is a prefix, not a word of its own
            for link in _LINKS:
                stem = head[: len(head) - len(link)] if link and head.endswith(link) else head
                # Gehalt|s|runde: the noun; Lern|tag: the verb lernen before the prefix Lern-
                forms = (stem, stem + "en", stem + "e") if stem in self.nouns else (stem + "en", stem, stem + "e")
                for candidate in forms:
                    if candidate in words:
                        return Compound(candidate, tail, stem, self._joined_noun(candidate, head, words))
        return None

    def _joined_noun(self, candidate: str, head: str, words: dict[str, list[str]]) -> str:
        """The word a page would write for a compound's head: for a combining form the list holds as written
        ("Hochzeits-", "Arbeits-"; its translations suit compounds best) the noun before its joint ("hochzeit",
        "arbeit"), else the head word itself."""
        if candidate == head and candidate not in self.nouns:
            for link in (link for link in _LINKS if link and head.endswith(link)):
                noun = head[: len(head) - len(link)]
                if noun in self.nouns and noun in words:
                    return noun
        return candidate

    def _hyphenated(self, parts: list[str], source: str, target: str) -> list[str]:
        """A hyphenated word's translations: its parts' best senses side by side, a part the list does not
        know (a version, a name) as written; none when no part is known. A part that is a word of the target
        language too is also meant as written: a compound joins a loanword by a hyphen ("Boot-Konfiguration" is a
        boot configuration, not a boat's), and the corpus's senses (``translate``) tell which it is."""
        senses = [self._part_senses(part, source, target) if part.isalpha() else [] for part in parts]
        if not any(senses):
            return []
        widest = max(len(found) for found in senses)
        return [" ".join(found[min(n, len(found) - 1)] if found else part for part, found in zip(parts, senses))
                for n in range(widest)]

    def _part_senses(self, part: str, source: str, target: str) -> list[str]:
        """A hyphenated word's part's best senses, and the part as written when the target language has it."""
        found = self.lookup(part, source, target)[:TRANSLATIONS_PER_TERM]
        loanword = part.lower() in self.table.get((target, source), {}) and part.lower() not in found
        return [*found, part.lower()] if loanword else found

    def compounds(self, terms: list[str], source: str, target: str) -> dict[str, list[str]]:
        """German compounds that two neighbouring terms may make in translation ("salary round" ->
        gehaltsrunde, gehaltrunde, ...), under the second term (the compound's head): every joint between the
        best single-word senses of each. Most are no words at all: they are for the corpus to confirm
        (``search.vocabulary``), never to search unconfirmed."""
        if target != "de":
            return {}
        out: dict[str, list[str]] = {}
        for first, head in zip(terms, terms[1:]):
            lefts, rights = ([w for w in self.lookup(t, source, target)[:TRANSLATIONS_PER_TERM] if w.isalpha()]
                             for t in (first, head))
            glued = [left + joint + right for left in lefts for right in rights for joint in _LINKS]
            if glued:
                out.setdefault(head, []).extend(w for w in glued if w not in out.get(head, []))
        return out

    def sense_words(self, terms: list[str], source: str, target: str) -> list[str]:
        """Every word of every translation of the terms, and every translation of more than one word: what to
        ask the corpus about before ``translate``."""
        phrases = [phrase for term in terms for phrase in self.lookup(term, source, target)]
        return list(dict.fromkeys([*(w for phrase in phrases for w in phrase.split()),
                                   *(phrase for phrase in phrases if " " in phrase)]))

    def translate(self, terms: list[str], source: str, target: str, per_term: int | None = None,
                  held: set[str] | None = None) -> list[str]:
        """The words of the best ``per_term`` translations of each term (``TRANSLATIONS_PER_TERM``, read when
        called), each word once; with ``held`` (the
        words and phrases of ``sense_words`` the corpus holds), the translations the corpus holds as phrases
        first ("status page" of "Statusseite"), then those that have a word the corpus holds, and of those
        only such words (of "further education budget", "education budget" where no page says "further")."""
        out: list[str] = []
        per_term = TRANSLATIONS_PER_TERM if per_term is None else per_term
        for term in terms:
            senses = self.lookup(term, source, target)
            if held is not None:
                senses = [kept for kept in map(functools.partial(_held_part, held=held, stop=stopwords(target)),
                                               sorted(senses, key=lambda phrase: phrase not in held)) if kept]
            taken: list[set[str]] = []
            for phrase in senses:
                if len(taken) == per_term:
                    break
                words = set(phrase.split())
                if any(words & sense for sense in taken):
                    continue  # "leave of absence" after "leave": a variant of a sense taken, not another sense
                taken.append(words)
                out.extend(w for w in phrase.split() if w not in out)
        return out


@functools.lru_cache(maxsize=4)
def load_lexicon(path: str) -> Lexicon | None:
    """The Ding list at ``path`` (German-English), or None when it is not installed."""
    if not path or not Path(path).is_file():
        return None
    return Lexicon.from_ding(path)
