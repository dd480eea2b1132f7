"""The verdict stage: whether a result answers the question (``strong``, ``weak``, ``none``) and how likely it is
right (``confidence``), read from the retrieval itself.

Two signals, both about the question's own content and never about word lists:

- ``coverage``: how much of the question's content the page's retrieved evidence holds (its texts, title,
  headings and breadcrumb), each content term weighted by its rarity in the question's language
  (``text.detect.word_log_prob``), so "Quaymaster" counts for more than "release". A term counts as held when
  the evidence writes it, a word it inflects to, a compound it is part of, or one of its translations. A question
  asked of the wrong corpus leaves its names and topic words unheld; one the corpus answers has them on the page.
  A term, the question's own or carried from the conversation, that no judged page holds and the corpus writes
  nowhere (``weigh_unknown``: one cached lookup of those few words) weighs ``UNKNOWN_TERM_FACTOR`` times more: a
  name no page has says the question (or the conversation it follows) is another organisation's, where a generic
  word a page lacks says only that it is worded otherwise.
  Each page's words are read once per search (``TextWords``), so a term is looked up in sets, not word by word.
- ``agreement``: the share of the ranked lists (BM25 and each k-NN list) that rank the page among their first
  ``AGREE_DEPTH`` pages: lists that agree on a page have found it by different roads.

Their mix is the ``signal``; ``confidence`` is the signal through a monotone map (``CALIBRATION``: binned and
isotonic, fitted on the tune halves of the evaluation sets by ``evident eval --split tune``, its
``calibration_fit``), the rate at which a first result of that signal was the right page. A follow-up read with its
conversation has a map of its own (``FOLLOW_UP_CALIBRATION``): its few own words and the many carried ones leave
its coverage lower than a question's that stands alone, at the same chance of being right, so one map would call
right follow-ups weak (``scripts/calibration.py`` fits it). The verdict cuts the
confidence: ``strong`` above ``STRONG_CONFIDENCE``, ``none`` below ``NONE_CONFIDENCE``, so the map is the one fitted
thing and the cuts say what they mean. The answer's verdict is its first result's; a search without results is
``none``, which the search log counts as a zero-hit query.

May import ``search.conversation`` (a carried term's share), ``search.grouping``, ``search.query`` and ``text``.
"""
from __future__ import annotations

import bisect
import functools
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable

from search.grouping import Group
from search.conversation import TERM_DECAY
from search.query import MIN_WORD_CHARS, PART_JOINS, Query, distinct_words, words
from text.dates import date_tokens, date_words
from text.detect import word_log_prob
from text.lemmas import default_lemmatizer

STRONG, WEAK, NONE = "strong", "weak", "none"
VERDICTS = (STRONG, WEAK, NONE)
# A word of this many letters shares its stem with its inflections ("verfällt", "verfallen": "verfa"); fewer tell
# unrelated words apart too seldom ("release", "relevant" share four).
STEM_CHARS = 5
# A word opening with a term this long is one of its forms ("edit" -> "edited", "rate" -> "rates"): the shortest
# word the spelling stage reads by its letters.
PREFIX_CHARS = MIN_WORD_CHARS
# The longest word whose lemma may be shorter than ``PREFIX_CHARS`` ("running" -> "run"): longer words are not
# looked up, which only saves time.
SHORT_INFLECTED_CHARS = 7
# A term this long found inside a longer word is part of a compound ("urlaub" in "resturlaub"); shorter ones sit
# inside unrelated words too often ("rate" in "separate").
COMPOUND_PART_CHARS = 6
# Texts whose words are kept (``text_words_of``): the evidence of the pages a few hundred searches judged, and the
# words of their answer-card units, some tens of MB; as many spellings split (``spelling_parts``), far smaller.
TEXTS_KEPT = 4096
WORDS_KEPT = 65_536  # short words whose lemmas are kept (``short_lemmas``): a corpus's short words, a few MB
# A term of the question's own that the corpus writes nowhere (another organisation's name, a product this one never
# wrote about) weighs this many times its rarity: it says the question is not about this corpus, where a missing
# common word says only that the page words it otherwise. Twice to five times told out-of-corpus questions from
# in-corpus ones alike on the tune halves; three sits in the middle.
UNKNOWN_TERM_FACTOR = 3.0
# Terms carried from earlier turns are the conversation's topic, not this question's own words: they weigh what a
# term of the turn before weighs in the search, however far back they were asked.
CARRIED_TERM_SHARE = TERM_DECAY
# A ranked list agrees on a page that it ranks among its first three pages: the pages a reader looks at.
AGREE_DEPTH = 3
# The signal's share of agreement; coverage has the rest (coverage alone told in-corpus from out-of-corpus
# questions, agreement told the right first page from a wrong one among in-corpus questions).
AGREEMENT_SHARE = 0.25
# The monotone map from signal to confidence: (lowest signal of a bin, rate of right first pages in it), by signal.
# Fitted by ``evident eval --split tune --json`` (``calibration_fit``) over the tune halves of the in-corpus and
# out-of-corpus sets together (the bench, talvik and harborlane files; each organisation's asked of the others').
CALIBRATION: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (0.1301, 0.0044), (0.3096, 0.0328), (0.3459, 0.05), (0.4295, 0.2375), (0.5236, 0.375),
    (0.5916, 0.5), (0.6217, 0.6), (0.6548, 0.7), (0.6832, 0.7875), (0.8592, 0.8095), (0.9077, 0.8889))
# The map for a follow-up read with terms carried from its conversation, fitted by ``scripts/calibration.py`` on the
# tune halves of the raw follow-ups: every raw evaluation's, in-corpus and out-of-corpus (a conversation asked of
# the other organisation's index).
FOLLOW_UP_CALIBRATION: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (0.1462, 0.0333), (0.2442, 0.05), (0.2825, 0.1833), (0.3784, 0.4286), (0.4104, 0.55), (0.4718, 0.7667),
    (0.6199, 0.85), (0.6685, 0.9), (0.8746, 0.9333))
# Strong: the first result is more likely right than wrong, so above this rate; a bin right half the time is a coin
# toss, and a coin toss is weak.
STRONG_CONFIDENCE = 0.5
# None: the first result is right about one time in seven or less, as out-of-corpus questions' first results are.
NONE_CONFIDENCE = 0.15
CONFIDENCE_DECIMALS = 3  # a rate read by eye and compared with a verdict's rate: three places


@dataclass(frozen=True)
class Judgement:
    """A result's verdict and confidence, with the signals they come from."""

    verdict: str
    confidence: float
    signal: float
    coverage: float
    agreement: float


NO_RESULT = Judgement(NONE, 0.0, 0.0, 0.0, 0.0)


def fold(text: str) -> str:
    """Lower case without accents or umlauts ("verfällt" -> "verfallt", "Straße" -> "strasse")."""
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("ß", "ss"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def own_terms(query: Query) -> list[str]:
    """The question's own content terms, each once, without a typed word the spelling stage corrected: its
    correction's terms stand for it (``Query.respelled``), when the question has them all."""
    lemmas = dict.fromkeys(query.lemmas)
    return [term for term in lemmas if not (query.respelled.get(term) and all(meant in lemmas
                                                                                for meant in query.respelled[term]))]


def term_names(query: Query) -> list[str]:
    """The question's content terms as written, in the order ``question_terms`` weighs them: its own
    (``own_terms``), then those carried from earlier turns."""
    return [*own_terms(query), *query.resolved.carried]


def follows_conversation(query: Query) -> bool:
    """Whether the question is read with terms carried from its conversation: judged through
    ``FOLLOW_UP_CALIBRATION``."""
    return bool(query.resolved.carried)


def question_terms(query: Query, carried_share: float | None = None) -> list[tuple[float, set[str]]]:
    """The question's content terms (``term_names``) as (weight, the spellings that count as holding it): the
    term and its translations; the terms carried from earlier turns at ``carried_share`` of their weight
    (``CARRIED_TERM_SHARE`` without one, read when the question is judged). A correction's term is held by the word
    as typed too: "pasword" asks for the password, and a typo the corpus writes nowhere is no sign of another
    organisation's question. A word of a date the question names ("5", "Februar" of "5. Februar 2025") is held
    where a page writes that date in any form ("2025-02-05"): it names the date, not a number or month of its own."""
    carried_share = CARRIED_TERM_SHARE if carried_share is None else carried_share
    translated: dict[str, set[str]] = {}
    for by_term in query.translated.values():
        for term, found in by_term.items():
            translated.setdefault(term, set()).update(fold(w) for w in found)
    for typed, meant in query.respelled.items():
        for term in meant:
            translated.setdefault(term, set()).add(fold(typed))
    for word, tokens in date_words(query.resolved.text).items():
        translated.setdefault(word, set()).update(tokens)
    own = own_terms(query)
    return [*((rarity(term, query.lang), {fold(term), *translated.get(term, set())}) for term in own),
            *((carried_share * rarity(term, query.lang), {fold(term)}) for term in query.resolved.carried)]


def rarity(term: str, lang: str) -> float:
    """A term's weight: minus its log probability in the language, so "Quaymaster" (about -19) counts for more than
    "time" (about -7); a word the word list lacks is as rare as the list's rarest (``word_log_prob``)."""
    return -word_log_prob(term, lang)


@dataclass(frozen=True)
class TextWords:
    """A text's folded words, indexed so that ``holds`` asks two sets and one string, never each word in turn."""

    exact: frozenset[str]
    stems: frozenset[str]  # the first ``STEM_CHARS`` letters of each word that long
    joined: str  # each word after a space: " " + a term finds a word opening with it, the term alone a word holding it

    @classmethod
    def of(cls, found: Iterable[str]) -> TextWords:
        exact = frozenset(found)
        return cls(exact, frozenset(w[:STEM_CHARS] for w in exact if len(w) >= STEM_CHARS),
                   "".join(" " + w for w in exact))

    @classmethod
    def union(cls, parts: Iterable[TextWords]) -> TextWords:
        """The words of several texts together, as ``text_words_of`` finds them in the texts joined by lines (a
        word never spans a line)."""
        parts = list(parts)
        return cls(frozenset().union(*(p.exact for p in parts)), frozenset().union(*(p.stems for p in parts)),
                   "".join(p.joined for p in parts))


@functools.lru_cache(maxsize=TEXTS_KEPT)
def spelling_parts(spelling: str) -> tuple[str, ...]:
    """The words of a spelling (``words``), kept: the same few spellings are asked of every text a search judges."""
    return tuple(words(spelling))


def holds(spelling: str, text_words: TextWords) -> bool:
    """Whether a text of ``text_words`` writes ``spelling``: itself, a word of its stem, a word opening with it, a
    compound holding it; every word of a translation of several words. A number, date or code has no stem: its
    first letters are another one's too ("2025-02-05" and "2025-02-12", "ipc-520" and "ipc-540")."""
    parts = spelling_parts(spelling)
    if len(parts) > 1:
        return all(holds(part, text_words) for part in parts)
    return (spelling in text_words.exact
            or (len(spelling) >= PREFIX_CHARS and " " + spelling in text_words.joined)
            or (len(spelling) >= STEM_CHARS and spelling[:STEM_CHARS] in text_words.stems
                and not any(c.isdigit() for c in spelling[:STEM_CHARS]))
            or (len(spelling) >= COMPOUND_PART_CHARS and spelling in text_words.joined))


@functools.lru_cache(maxsize=TEXTS_KEPT)
def text_words_of(text: str) -> TextWords:
    """The folded words of a text, each code whole and by its parts ("ts-e4471", "ts", "e4471"): the question's
    analysis splits a code at its hyphens and slashes, so either way of writing it is held. A date the text writes
    adds its ISO tokens, as the lemma view holds them ("5 February 2025": "2025-02-05", "--02-05"), so a
    question's date is held whatever form either writes it in. Kept per text
    (``TEXTS_KEPT``): the same evidence and words come back search after search, and their fold is most of the
    verdict's time."""
    # Each distinct word with a letter beyond ASCII folded once, not the text letter by letter (NFC first: a letter
    # and its accent written apart would split the word before the fold joins them).
    found = distinct_words(text if text.isascii() else unicodedata.normalize("NFC", text))
    dates = date_tokens(text, found)  # read before the fold: a month's name as the date patterns write it ("märz")
    beyond_ascii = {word for word in found if not word.isascii()}
    found = (found - beyond_ascii) | {w for word in beyond_ascii for w in words(fold(word))} | set(dates)
    return TextWords.of(found | short_lemmas(found) | {part for word in found if "-" in word or "/" in word
                                                       for part in PART_JOINS.split(word) if part})


def short_lemmas(found: Iterable[str]) -> set[str]:
    """The lemmas shorter than ``PREFIX_CHARS`` of the words ``found`` that inflect them ("days" -> "day", "tage" ->
    "tag", "paid" -> "pay"), in each language with a lemma table: a question's term is its lemma, and a term that
    short is held by no stem or prefix rule, so without its lemma a page writing "30 working days" would not hold
    the question's "day"."""
    return {lemma for word in found if word.isalpha() and len(word) <= SHORT_INFLECTED_CHARS
            for lemma in _short_lemmas_of(word)}


@functools.lru_cache(maxsize=WORDS_KEPT)
def _short_lemmas_of(word: str) -> tuple[str, ...]:
    """``short_lemmas`` of one word, kept: a corpus's pages share most of their short words."""
    lemmatizer = default_lemmatizer()
    lemmas = {fold(lemmatizer.word_lemma(word, lang)) for lang in lemmatizer.languages}
    return tuple(lemma for lemma in lemmas if lemma != word and len(lemma) < PREFIX_CHARS)


def coverage(terms: list[tuple[float, set[str]]], text: str) -> float:
    """The weighted share of ``terms`` that ``text`` holds (1.0 for a question without content terms)."""
    return coverage_of(terms, text_words_of(text))


def holds_any(terms: list[tuple[float, set[str]]], text: str) -> bool:
    """Whether ``text`` holds any of ``terms`` (``coverage`` above 0), asking no further once one is held; every
    text does for a question without content terms."""
    if not any(weight for weight, _ in terms):
        return True
    text_words = text_words_of(text)
    return any(weight and any(holds(s, text_words) for s in spellings) for weight, spellings in terms)


def coverage_of(terms: list[tuple[float, set[str]]], text_words: TextWords) -> float:
    """The weighted share of ``terms`` that a text of ``text_words`` holds (1.0 without content terms)."""
    total = sum(weight for weight, _ in terms)
    if not total:
        return 1.0
    return sum(weight for weight, spellings in terms if any(holds(s, text_words) for s in spellings)) / total


def weigh_unknown(terms: list[tuple[float, set[str]]], named: list[str], judged: list[TextWords],
                  corpus_holds: Callable[[list[str]], set[str]]) -> list[tuple[float, set[str]]]:
    """``terms`` (``question_terms``; ``named``: each one's term as written, in their order) with each term that
    no judged page holds and the corpus holds nowhere (``corpus_holds``: which of the terms any evidence writes)
    at ``UNKNOWN_TERM_FACTOR`` its weight; only the terms no page holds are asked about."""
    unheld = [term for term, (_, spellings) in zip(named, terms)
              if not any(holds(s, text_words) for text_words in judged for s in spellings)]
    unknown = set(unheld) - corpus_holds(unheld) if unheld else set()
    return [(weight * UNKNOWN_TERM_FACTOR if term in unknown else weight, spellings)
            for term, (weight, spellings) in zip(named, terms)]


def group_texts(found: Group) -> list[str]:
    """What a page's retrieved evidence says, with its title, headings and breadcrumb: the texts a verdict reads."""
    src = found.items[0]["_source"]
    parts = [f"{src.get('title', '')}\n{' '.join(src.get('breadcrumb', []) or [])}"]
    for item in found.items:
        parts += [" ".join(item["_source"].get("heading_path", []) or []), item["_source"].get("text", "")]
    return parts


def group_words(found: Group) -> TextWords:
    """The words of a page's texts (``group_texts``), each text's as kept (``text_words_of``), together."""
    return TextWords.union(text_words_of(part) for part in group_texts(found))


def matching(groups: list[Group], terms: list[tuple[float, set[str]]]) -> list[Group]:
    """The pages of ``groups`` that hold any of ``terms`` (their coverage above 0), each read text by text and no
    further once one is held: what a search lists below a first page that is no good match."""
    return [found for found in groups if any(holds_any(terms, text) for text in group_texts(found))]


def list_pages(ranked_lists: list[list[dict]]) -> list[list[str]]:
    """Each ranked list's first ``AGREE_DEPTH`` distinct pages."""
    out = []
    for ranked in ranked_lists:
        pages: list[str] = []
        for hit in ranked:
            url = hit["_source"]["url"]
            if url not in pages:
                pages.append(url)
                if len(pages) == AGREE_DEPTH:
                    break
        out.append(pages)
    return out


def agreement(url: str, top_pages: list[list[str]]) -> float:
    """The share of the ranked lists that have ``url`` among their first pages (1.0 without separate lists)."""
    if len(top_pages) < 2:
        return 1.0
    return sum(url in pages for pages in top_pages) / len(top_pages)


def calibrated(signal: float, calibration: tuple[tuple[float, float], ...] = CALIBRATION) -> float:
    """The confidence of ``signal``: the rate of its bin in the monotone map."""
    at = bisect.bisect_right([low for low, _ in calibration], signal) - 1
    return calibration[max(at, 0)][1]


def verdict_of(confidence: float) -> str:
    return STRONG if confidence > STRONG_CONFIDENCE else NONE if confidence < NONE_CONFIDENCE else WEAK


def judge(found: Group, text_words: TextWords, terms: list[tuple[float, set[str]]],
          top_pages: list[list[str]], calibration: tuple[tuple[float, float], ...] = CALIBRATION) -> Judgement:
    """One result's verdict and confidence from its coverage of the question and the lists' agreement on it."""
    held = coverage_of(terms, text_words)
    agreed = agreement(found.items[0]["_source"]["url"], top_pages)
    signal = (1 - AGREEMENT_SHARE) * held + AGREEMENT_SHARE * agreed
    confidence = calibrated(signal, calibration)
    return Judgement(verdict_of(confidence), round(confidence, CONFIDENCE_DECIMALS), round(signal, 4),
                     round(held, 4), round(agreed, 4))


def judge_all(groups: list[Group], query: Query, ranked_lists: list[list[dict]],
              corpus_holds: Callable[[list[str]], set[str]] | None = None) -> list[Judgement]:
    """A judgement per group, in their order; a group given twice (the first result, also the first shown on
    page 1) is judged once. With ``corpus_holds`` (which of some terms any evidence writes), the terms that no
    page writes weigh ``UNKNOWN_TERM_FACTOR`` times their rarity (``weigh_unknown``). A follow-up read with carried
    terms is judged through ``FOLLOW_UP_CALIBRATION``."""
    text_words = {key: group_words(found) for key, found in {id(g): g for g in groups}.items()}
    terms, top_pages = question_terms(query), list_pages(ranked_lists)
    if corpus_holds is not None:
        terms = weigh_unknown(terms, term_names(query), list(text_words.values()), corpus_holds)
    calibration = FOLLOW_UP_CALIBRATION if follows_conversation(query) else CALIBRATION
    judged: dict[int, Judgement] = {}
    for found in groups:
        if id(found) not in judged:
            judged[id(found)] = judge(found, text_words[id(found)], terms, top_pages, calibration)
    return [judged[id(found)] for found in groups]
