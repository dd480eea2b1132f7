"""Query understanding: the words, content terms, named versions and codes of a question, and its readings.

``understand`` gives the ``Query`` every later stage reads: the language, the question as resolved from the
conversation (``ResolvedQuery``, made by ``search.conversation``), the lemmas of its content words and their
word-by-word translations into each other language the lexicon knows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from search.lexicon import Lexicon
from text.dates import date_tokens
from text.detect import word_log_prob
from text.lemmas import Lemmatizer, Token
from text.stopwords import stopwords

_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$")
_TOKEN = re.compile(r"[\w][\w.\-/]*\w|\w", re.UNICODE)
# What joins the parts of one term: a code's ("TS-E4471", "HVX-2588") or words' ("EDI-Bug", "A/B"); dots stay in
# versions.
PART_JOINS = re.compile(r"[-/]")
# A one-letter word carries no topic ("a", "x"); a one-digit number may ("5"). The pieces of "E-Bike" or
# "Mitarbeitende(r)" would otherwise be terms no page holds, and lower the verdict's coverage of right answers.
_MIN_TERM_CHARS = 2
# OpenSearch refuses a query of more than 1,024 clauses, and BM25 makes one clause per searched field (9)
# and word: a question's words (16 content words and their stop words, about 40 words), its lemmas, the
# carried terms and the translated words (48) come to about 9 x 40 + 16 + 16 + 9 x 48 = 824. 16 content
# words are more than any typed question has (the bench's longest has 13); a pasted paragraph keeps its
# 16 rarest.
MAX_QUERY_TERMS = 16
# The term suggester's own default min_word_length: a shorter word says too little by its letters. It has too many
# one-edit neighbours ("limt": list, limit, lint) for spelling to choose from; a compound's head written shorter is
# mostly a verb's prefix (ent|sorge, ver|…, zer|…); and the verdict holds a word by a longer one opening with it only
# from this length ("edit" by "edited", not "art" by "article").
MIN_WORD_CHARS = 4
MAX_TRANSLATED_WORDS = 48


@dataclass
class ResolvedQuery:
    """The question after the conversation: what BM25, the embedder and the follow-up prior take from it."""

    text: str  # the user's own words: BM25 at full weight
    carried: dict[str, float]  # key terms of earlier turns -> their share of the carried BM25 weight
    dense_text: str  # what the embedder sees: the earlier question and this one, for a follow-up
    prior_urls: dict[str, float]  # pages shown for earlier turns -> their share of the follow-up prior
    follow_up: bool  # read together with the conversation
    # Asked after earlier turns but read on its own: it matches nothing of the corpus (``conversation.off_the_map``).
    new_topic: bool = False

    @classmethod
    def standalone(cls, query: str) -> ResolvedQuery:
        """A question taken as it stands: no conversation, or history turned off."""
        return cls(query, {}, query, {}, False)


@dataclass
class Query:
    """The question as the retrievers, priors and snippets read it."""

    asked: str  # as the user wrote it
    lang: str
    resolved: ResolvedQuery
    lemmas: list[str]  # content terms of ``resolved.text``
    translated: dict[str, dict[str, list[str]]]  # language -> content term -> its translations
    # A typed content term the spelling stage corrected -> the content terms of its correction ("pasword" ->
    # ["password"]): both are searched, but the question asks one thing (``respelled_terms``).
    respelled: dict[str, list[str]] = field(default_factory=dict)


def words(text: str) -> list[str]:
    """The lower-cased words of a text, versions and codes kept whole ("4.1.2", "hvx-2588")."""
    return [w.lower() for w in _TOKEN.findall(text)]


def distinct_words(text: str) -> set[str]:
    """The distinct words of ``words``, each lower-cased once however often the text writes it (a long page's)."""
    return {w.lower() for w in set(_TOKEN.findall(text))}


def content_tokens(text: str, lang: str, lemmatizer: Lemmatizer) -> list[Token]:
    """The query's words that are not stop words.

    spaCy's German stop list holds nouns too ("Jahr", "Tag", "Zeit"); German capitalizes nouns, so a
    capitalized word that does not open the sentence is kept ("An welchem Tag wird das Gehalt ...").
    """
    stop = stopwords(lang)
    kept = []
    opening = True
    for token in lemmatizer.analyze(text, lang):
        if token.kind == "punct":
            opening = opening or token.text in ".?!:\n"
            continue
        noun = lang == "de" and not opening and token.text[:1].isupper()
        opening = False
        if (noun or (token.lemma not in stop and token.text.lower() not in stop)) and (
                len(token.lemma) >= _MIN_TERM_CHARS or token.lemma.isdigit()):
            kept.append(token)
    return kept


def content_terms(text: str, lang: str, lemmatizer: Lemmatizer) -> list[str]:
    """The lemmas of the query's content words, plus ISO tokens for the dates it names."""
    return terms_of(content_tokens(text, lang, lemmatizer), text)


def terms_of(tokens: list[Token], text: str) -> list[str]:
    """The lemmas of already analyzed content words of ``text``, plus ISO tokens for its dates."""
    terms = [t.lemma for t in tokens]
    return terms + [t for t in date_tokens(text) if t not in terms]


def named_codes(text: str, lang: str, lemmatizer: Lemmatizer) -> set[str]:
    """The versions, numbers and codes a text names ("4.0", "rc1", "hvx-1988"): what tells apart pages
    written from one template, whose titles differ in them only."""
    return {t.text.lower() for t in lemmatizer.analyze(text, lang) if t.kind in ("num", "code")}


def title_words(title: str) -> set[str]:
    return set(words(title))


def identifiers(text: str, lang: str, lemmatizer: Lemmatizer | None) -> dict[str, set[str]]:
    """Versions ("4.1.2"), dates ("2025-02-05" and "--02-05") and other codes ("rc1", "hvx-2588") in a text,
    by kind; bare numbers are not identifiers. Without a lemmatizer (a title) words are split by ``words``."""
    dates = set(date_tokens(text))
    found: dict[str, set[str]] = {"date": dates} if dates else {}
    for word in named_codes(text, lang, lemmatizer) if lemmatizer else title_words(text):
        if any(c.isdigit() for c in word) and not word.isdigit() and word not in dates:
            word = version_of(word)
            found.setdefault("version" if _VERSION.match(word) else "code", set()).add(word)
    return found


def version_of(word: str) -> str:
    """The version a word joins to words by hyphens ("4.1.2-Bericht", "HVX-4.1": German compounds, product
    prefixes), else the word."""
    parts = word.split("-")
    versions = [part for part in parts if _VERSION.match(part)]
    return versions[0] if len(versions) == 1 and all(p.isalpha() for p in parts if p != versions[0]) else word


def translations(lexicon: Lexicon | None, terms: list[str], lang: str,
                 present: Callable[[list[str], str], set[str]] | None = None,
                 neighbours: bool = True, written: dict[str, str] | None = None) -> dict[str, dict[str, list[str]]]:
    """Each content word of the query in each other language the lexicon knows, for pages written there;
    with ``present`` (which of some words of a language the corpus holds), in the senses the corpus uses,
    and, when the terms stand in the question's order (``neighbours``), with the German compounds two
    neighbouring terms make that the corpus holds ("salary round" -> "gehaltsrunde", under "round").
    A term whose lemma gives no translation is looked up as ``written`` (lemma -> the word as asked): the
    lemma table reads "schnell" as the verb "schnellen", which has no sense a page here holds."""
    if lexicon is None:
        return {}
    out: dict[str, dict[str, list[str]]] = {}
    as_written = {term: word for term, word in (written or {}).items() if word != term}
    for source, target in sorted(lexicon.pairs):
        if source == lang:
            stop, budget = stopwords(target), MAX_TRANSLATED_WORDS
            glued = lexicon.compounds(terms, source, target) if present and neighbours else {}
            held = present([*lexicon.sense_words([*terms, *as_written.values()], source, target),
                            *(w for ws in glued.values() for w in ws)], target) if present else None
            def senses(word: str) -> list[str]:
                return [w for w in lexicon.translate([word], source, target, held=held) if w not in stop]

            for term in terms:
                found = senses(term) or (senses(as_written[term]) if term in as_written else [])
                found += [w for w in glued.get(term, []) if held and w in held and w not in found]
                budget -= sum(len(w.split()) for w in found)
                if found and budget >= 0:
                    out.setdefault(target, {})[term] = found
    return out


def most_informative(tokens: list[Token], lang: str, limit: int = MAX_QUERY_TERMS) -> list[Token]:
    """The ``limit`` rarest distinct words (by the language's word frequencies), in the question's order."""
    distinct = list({t.lemma: t for t in tokens}.values())
    if len(distinct) <= limit:
        return distinct
    rarest = set(sorted(distinct, key=lambda t: word_log_prob(t.text, lang))[:limit])
    return [t for t in distinct if t in rarest]


def says_the_same(typed: str, meant: str) -> bool:
    """Whether a spelling correction says what the typed word says: a typo's close word ("pasword": "password")
    or the words it ran together ("ratelimit": "rate limit"); not the parts of a compound the corpus holds, which
    leave the rest of its meaning out ("Verpflegungspauschale": "Pauschale"; "Crewbase": "base")."""
    typed, parts = typed.lower(), meant.lower().split()
    if "".join(parts).replace("-", "") == typed.replace("-", ""):
        return True
    return not all(part in typed for part in parts)  # a typo changes letters; a compound's parts are in it whole


def respelled_terms(corrections: dict[str, str], lang: str, lemmatizer: Lemmatizer) -> dict[str, list[str]]:
    """Each typed content term of ``corrections`` (typed word -> its correction, ``search.spelling``) that says
    the same (``says_the_same``) with the content terms of its correction, where they differ: "pasword" ->
    ["password"], "ratelimit" -> ["rate", "limit"]. The spelling stage searches both, so nothing typed is lost;
    the verdict reads them as one term, which a page holds when it writes either
    (``search.verdict.question_terms``)."""
    out: dict[str, list[str]] = {}
    for typed, meant in corrections.items():
        if not says_the_same(typed, meant):
            continue
        meant_terms = content_terms(meant, lang, lemmatizer)
        for term in content_terms(typed, lang, lemmatizer):
            if meant_terms and term not in meant_terms:
                out[term] = meant_terms
    return out


def understand(asked: str, lang: str, resolved: ResolvedQuery, lemmatizer: Lemmatizer,
               lexicon: Lexicon | None, present: Callable[[list[str], str], set[str]] | None = None,
               corrections: dict[str, str] | None = None) -> Query:
    """The resolved question's content terms and, when a lexicon is given, their translations; with the
    spelling stage's ``corrections``, which typed term each correction stands for (``respelled_terms``).

    A question with more content words than a query can carry (a pasted paragraph, a stack trace) is
    searched by its most informative ones; earlier turns' terms are cut to the same count."""
    tokens = content_tokens(resolved.text, lang, lemmatizer)
    if len({t.lemma for t in tokens}) > MAX_QUERY_TERMS:
        tokens = most_informative(tokens, lang)
        resolved = replace(resolved, text=" ".join(t.text for t in tokens))
    if len(resolved.carried) > MAX_QUERY_TERMS:
        resolved = replace(resolved, carried=dict(list(resolved.carried.items())[:MAX_QUERY_TERMS]))
    lemmas = terms_of(tokens, resolved.text)
    written = {t.lemma: t.text.lower() for t in tokens}
    return Query(asked, lang, resolved, lemmas, translations(lexicon, lemmas, lang, present, written=written),
                 respelled_terms(corrections or {}, lang, lemmatizer))
