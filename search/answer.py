"""The answer card: the one unit of evidence that answers the question, shown above the results, without an LLM.

Only for an answer whose verdict is strong (``search.verdict``): a wrong card costs more than none. The units are
those of the first page's best evidence (``CARD_EVIDENCE``): a table row and a definition whole, every other
evidence (a passage, a list, a note, a PDF page, the page's facts) by its sentences and list items
(``text.sentences``). Each unit is scored by how well it answers:

- ``closeness``: how close the unit comes to the question in the embedder, read from the sentence view the worker
  embedded (``search.sentences.unit_closeness``), against the closest unit of the page;
- ``coverage``: how much of the question's content the unit holds, read with the page's title and the unit's
  headings (``search.verdict.coverage``); a follow-up's terms carried from its conversation weigh little there
  (``CARD_CARRIED_SHARE``);
- what it adds: the content words of the unit that no term of the question holds (a date, a number, a name, a
  value). An answer tells what the question asks; a unit that restates the question adds nothing;
- the value asked for: a question that asks how many, how long or when (``asked_values``) is answered by a number,
  a date or a time, so a unit writing one the question does not gains ``VALUE_WEIGHT``. The interrogatives are
  read by a pattern in English, German and Spanish, the languages the lemmatizer reads: no classifier of answer
  types runs here without a model download, and these few words are what such a classifier keys on.

The best unit is the card when its score reaches ``CARD_MIN_SCORE`` and leads the next unit by ``CARD_MIN_MARGIN``:
two units that answer about as well leave the card unsure, unless they answer together (``pair_answers``: two rows
of the page's tables, two items of one list) and lead the third by that margin; the card then shows both.

A table row shows as its header and values ("Machine: Orbis EdgeBox E3 · BIOS: E3.24"), a definition as its term
and meaning, a sentence, list item or page fact as written; a pair of rows or items, each on a line of ``context``.
A sentence or list item also comes with its ``context``: the sentences or items around it in its evidence, up to
``CARD_CONTEXT_CHARS``. An answer is often
the sentence that names the value together with the one before it (what it is about) or after it (the
condition, the next step); the card shows the unit in bold within them, as a featured snippet does.

A page's facts tell who created and changed the page in English and in German alike (``ingest.assemble.page_facts``):
the card reads those in the asker's language only (``in_asked_language``), since each fact's twin would answer as well
and leave the card unsure.

May import ``core`` (links), ``ingest.evidence`` (the kinds), ``ingest.assemble`` (the facts' languages),
``search.conversation`` (a carried term's share), ``search.grouping``, ``search.query``, ``search.present`` (a row's
text), ``search.sentences``, ``search.verdict`` and ``text``.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from opensearchpy.exceptions import OpenSearchException

from core.urls import safe_link
from ingest import evidence as kinds
from ingest.assemble import FACT_LANGUAGES, facts_language
from search.conversation import MIN_SHARE
from search.grouping import Group
from search.present import row_text
from search.query import words
from search.schema import Answer
from search.sentences import AskedUnits, unit_closeness, unit_query
from search.verdict import STRONG, Judgement, coverage, fold, holds_any
from text.sentences import split_sentences
from text.stopwords import stopwords

log = logging.getLogger(__name__)

CARD_EVIDENCE = 5  # the first page's evidence searched for the unit: the page's best; lower ones rarely answer
CARD_MAX_CHARS = 400  # about five lines of the card: longer is a paragraph, not an answer
# The score is in units of closeness (the embedder's score, about 0.6 to 0.95 for a page's sentences): a unit a tenth
# of closeness behind the page's closest loses 0.1. Its other parts, fitted on the tune halves of the bench's
# question files (``evident eval --split tune``): a unit holding the whole question gains 0.75, one adding
# ``ADDED_WORDS`` words 0.2.
COVERAGE_WEIGHT = 0.75
ADDED_WEIGHT = 0.2
# Content words a unit adds beyond the question that count in full: an answer adds a value or a name, a few words;
# more is a longer unit, not a better answer.
ADDED_WORDS = 4
# A unit writing a value (a number, a date, a time) that a question asking how many, how long or when lacks gains
# what a unit adding ``ADDED_WORDS`` words gains: the value is what it adds. A heuristic of the card with no number
# of its own (``scripts/inventory.py``); on the tune halves, 0.15 showed 7 fewer right cards and 2 fewer wrong ones.
VALUE_WEIGHT = ADDED_WEIGHT
# A question asking for a value: how many, much, long, ... or when, in English, German and Spanish. "When" only
# where it opens the question or a clause ("when is ...", "and when ..."), not as a conjunction ("... when it is
# off?"); German's "wann" is never one ("wenn" is).
ASKS_VALUE = re.compile(
    r"\bhow (?:many|much|long|big|large|fast|high|often|far|old|soon)\b|\bwhat (?:time|date)\b"
    r"|(?:^|[,;:]\s*|\b(?:and|or|but|so|by|until|till|since|from)\s+)when\b"
    r"|\bwie (?:viele?|lange|hoch|schnell|oft|gro(?:ß|ss)|weit|alt|teuer)\b|\bwann\b|\bcu[aá](?:nt[oa]s?|ndo)\b",
    re.IGNORECASE)
# A value: a word opening with a digit (a number, an amount, a date, a time: "30", "4,2", "2025-03-31", "12:00"),
# not a code holding one ("SEV-2", "ams1").
_VALUE = re.compile(r"(?<![\w-])\d[\d.,:/%-]*")
# A unit the sentence view has no vector for (a PDF page's sentence, a piece under three words) counts as this far
# below the page's closest unit (when any has one): a small gap, as the fit preferred.
UNEMBEDDED_GAP = 0.05
# Below this score, no card: with ``CARD_MIN_MARGIN`` the cut that showed the most right cards on the tune halves
# while keeping wrong ones under one in ten of those shown.
CARD_MIN_SCORE = 0.74
# The best unit's lead over the next: two units answering alike (a neighbour row, the same fact said twice) leave
# the card unsure.
CARD_MIN_MARGIN = 0.15
# The context around a sentence or list item: the neighbours nearest to it, after it first, up to about three lines
# of the card; the unit alone when it is longer.
CARD_CONTEXT_CHARS = 300
# A follow-up's terms carried from earlier turns weigh in a unit's coverage as terms that have all but faded out of
# the conversation (the verdict weighs them at half): the conversation's topic says which page, the question's own
# words say which sentence of it answers. On the raw follow-ups of both bench files, this share (0.1) about doubled
# the right cards against the verdict's and kept the wrong ones near one in ten shown; none (0) let twice as many
# wrong ones through.
CARD_CARRIED_SHARE = MIN_SHARE
# Card kinds by evidence kind: a row and a definition hold their answer whole; the rest answer by a sentence.
CARD_KINDS = {kinds.TABLE_ROW: "table_row", kinds.TERM: "definition", kinds.PASSAGE: "sentence",
              kinds.PANEL: "sentence", kinds.PDF_PAGE: "sentence", kinds.LIST: "list_item",
              kinds.PAGE_FACTS: "page_fact"}
WHOLE_KINDS = {kinds.TABLE_ROW, kinds.TERM}  # shown whole, never split into sentences
_LIST_MARK = re.compile(r"^(?:[-*•]|\[[ xX]\]|\d+[.)])\s+")  # a list item's bullet, number or task box


@dataclass(frozen=True)
class Unit:
    """A candidate answer: its text as the evidence writes it, the evidence, and its score's parts."""

    text: str
    source: dict  # the evidence's fields (``_source``)
    closeness: float | None  # None: the sentence view has no vector for it
    held: float  # the question's coverage by the unit with title and headings
    added: int  # content words the question does not hold
    value: bool = False  # writes a value the question asks for (``asked_values``) and does not write itself


def shown_text(kind: str, unit: str) -> str:
    if kind == kinds.TABLE_ROW:
        return row_text(unit)
    return _LIST_MARK.sub("", " ".join(unit.split()))


def context_of(unit: Unit) -> str:
    """``unit`` with its neighbouring sentences or list items in its evidence, as written: the next one, then the one
    before, and so on while the whole stays within ``CARD_CONTEXT_CHARS``; empty for a row, a definition or a page
    fact, which answer whole."""
    src = unit.source
    if src.get("kind", "") in WHOLE_KINDS or src.get("kind", "") == kinds.PAGE_FACTS:
        return ""
    # every sentence, a long one too: the context never reads past a neighbour it leaves out
    pieces = [piece for piece in split_sentences(src.get("text", ""), src.get("lang", "") or "en") if piece.strip()]
    if unit.text not in pieces:
        return ""
    first = last = pieces.index(unit.text)
    length = len(unit.text)
    grown = True
    while grown:
        grown = False
        for at in (last + 1, first - 1):  # after the unit first: the condition or next step follows what it names
            if 0 <= at < len(pieces) and length + 1 + len(pieces[at]) <= CARD_CONTEXT_CHARS:
                first, last = min(first, at), max(last, at)
                length += 1 + len(pieces[at])
                grown = True
    return " ".join(shown_text(src["kind"], piece) for piece in pieces[first:last + 1])


def unit_texts(src: dict) -> list[str]:
    """The units of an evidence: a row or definition whole, the rest by sentence (a list item is one), each
    short enough for a card."""
    text = src.get("text", "")
    if src.get("kind", "") in WHOLE_KINDS:
        pieces = [text]
    else:
        pieces = split_sentences(text, src.get("lang", "") or "en")
    return [piece for piece in pieces if piece.strip() and len(piece) <= CARD_MAX_CHARS]


def added_words(unit: str, terms: list[tuple[float, set[str]]], lang: str, asked: dict[str, bool]) -> int:
    """How many content words of ``unit`` no term of the question holds: what the unit tells beyond the question.
    ``asked``: word -> whether a term holds it, filled as the words are met (a page's units share most words)."""
    stop = stopwords(lang or "en")
    added = 0
    for word in dict.fromkeys(words(fold(unit))):
        if word in stop:
            continue
        if word not in asked:
            asked[word] = holds_any(terms, word)
        added += not asked[word]
    return added


def asked_values(question: str) -> frozenset[str] | None:
    """The values ``question`` writes itself when it asks for a value (``ASKS_VALUE``), which a unit repeating them
    does not answer; None when it asks for none."""
    return frozenset(_VALUE.findall(question)) if ASKS_VALUE.search(question.strip()) else None


def in_asked_language(src: dict, unit: str, lang: str) -> bool:
    """Whether ``unit`` of the evidence ``src`` may answer a question in ``lang``: any unit but a page fact telling
    who and when in another language than the asker's (``ingest.assemble.facts_language``; the page's own for a
    language the facts are not told in). The facts tell each twice, and the twin would leave the card unsure."""
    if src.get("kind", "") != kinds.PAGE_FACTS:
        return True
    told = facts_language(unit)
    page_lang = src.get("lang", "") if src.get("lang", "") in FACT_LANGUAGES else "en"
    return told is None or told == (lang if lang in FACT_LANGUAGES else page_lang)


def units(found: Group, terms: list[tuple[float, set[str]]], close: dict[str, dict[str, float]],
          values: frozenset[str] | None = None, lang: str = "") -> list[Unit]:
    """Each card-kind unit of ``found``'s first evidence with its score's parts; ``close``: evidence id ->
    sentence -> closeness (``search.sentences.unit_closeness``); ``values``: ``asked_values`` of the question;
    ``lang``: the question's language (``in_asked_language``)."""
    out: dict[str, Unit] = {}  # by text: a sentence two evidence share (chunks overlap) is one unit, the first's
    asked: dict[str, bool] = {}
    for item in found.items[:CARD_EVIDENCE]:
        src = item["_source"]
        if src.get("kind", "") not in CARD_KINDS:
            continue
        around = " ".join([src.get("title", ""), *(src.get("heading_path", []) or [])])
        by_sentence = close.get(src.get("id", ""), {})
        for text in unit_texts(src):
            if text in out or not in_asked_language(src, text, lang):
                continue
            # a row's sentence view may cut it in several: its closest part counts
            scores = [score for sentence, score in by_sentence.items() if sentence in text]
            value = values is not None and bool(set(_VALUE.findall(shown_text(src["kind"], text))) - values)
            out[text] = Unit(text, src, max(scores) if scores else None, coverage(terms, f"{around}\n{text}"),
                             added_words(text, terms, src.get("lang", ""), asked), value)
    return list(out.values())


def scored(found: Group, terms: list[tuple[float, set[str]]], close: dict[str, dict[str, float]],
           values: frozenset[str] | None = None, lang: str = "") -> list[tuple[float, Unit]]:
    """``found``'s units with their scores, best first (the better ranked evidence first on a tie)."""
    found_units = units(found, terms, close, values, lang)
    embedded = [unit.closeness for unit in found_units if unit.closeness is not None]
    closest = max(embedded, default=0.0)
    out = []
    for unit in found_units:
        if unit.closeness is not None:
            behind = closest - unit.closeness
        else:  # without any vector (a search without k-NN) no unit is behind
            behind = UNEMBEDDED_GAP if embedded else 0.0
        score = (COVERAGE_WEIGHT * unit.held + ADDED_WEIGHT * min(unit.added, ADDED_WORDS) / ADDED_WORDS
                 + VALUE_WEIGHT * unit.value - behind)
        out.append((score, unit))
    return sorted(out, key=lambda pair: -pair[0])


def score_after(ranked: list[tuple[float, Unit]], at: int) -> float:
    """The score of the unit at ``at`` of ``ranked``; none there: minus infinity."""
    return ranked[at][0] if len(ranked) > at else float("-inf")


def pair_answers(first: Unit, second: Unit) -> bool:
    """Whether two units answering about as well answer together: two rows of the page's tables (an answer spread
    over neighbouring rows, or a value the question does not pin to one row), or two items of one list."""
    kinds_of = (first.source.get("kind"), second.source.get("kind"))
    return kinds_of == (kinds.TABLE_ROW, kinds.TABLE_ROW) or (
        kinds_of == (kinds.LIST, kinds.LIST) and first.source.get("id") == second.source.get("id"))


def card_evidence_ids(found: Group) -> list[str]:
    """The ids of the evidence whose units may be ``found``'s card."""
    return [item["_source"]["id"] for item in found.items[:CARD_EVIDENCE]]


def closeness_of(found: Group, vector: list[float] | None, search: Callable[[dict], dict] | None,
                 asked: AskedUnits | None = None) -> dict[str, dict[str, float]]:
    """The sentences of ``found``'s first evidence and their closeness to the question's ``vector``, by evidence id,
    from the sentence view (``search.sentences.unit_query``): read from ``asked``, that query's answer over these
    evidence and maybe more, when the search asked it ahead; else asked through ``search``. None without a vector,
    or when OpenSearch does not answer (the card is then chosen without them, and the search goes on)."""
    sources = [item["_source"] for item in found.items[:CARD_EVIDENCE]]
    titles = {src["id"]: src.get("title", "") for src in sources}
    if asked is not None and set(titles) <= asked.evidence_ids:
        return {evidence_id: close for evidence_id, close in unit_closeness(asked.response, titles).items()
                if evidence_id in titles}
    if vector is None or search is None:
        return {}
    try:
        response = search(unit_query(vector, list(titles)))
    except OpenSearchException as exc:
        log.warning("answer card: sentence closeness failed: %s", exc)
        return {}
    return unit_closeness(response, titles)


def answer_card(found: Group | None, judgement: Judgement, terms: list[tuple[float, set[str]]],
                files_base_url: str = "", vector: list[float] | None = None,
                search: Callable[[dict], dict] | None = None, asked: AskedUnits | None = None,
                values: frozenset[str] | None = None, lang: str = "") -> Answer | None:
    """The card of the first result ``found``, or None when its verdict is not strong or no unit of its evidence
    answers clearly enough. The units' closeness to the question's ``vector`` is read from ``asked`` when the
    search asked for it ahead (``closeness_of``), else asked of the index through ``search`` (without them:
    coverage and what a unit adds alone); ``values``: ``asked_values`` of the question as asked; ``lang``: its
    language."""
    if found is None or judgement.verdict != STRONG:
        return None
    ranked = scored(found, terms, closeness_of(found, vector, search, asked), values, lang)
    if not ranked:
        return None
    best, unit = ranked[0]
    if best < CARD_MIN_SCORE:
        return None
    context = context_of(unit)
    if best - score_after(ranked, 1) < CARD_MIN_MARGIN:  # a second unit answers about as well
        second = ranked[1][1]
        if not (pair_answers(unit, second) and best - score_after(ranked, 2) >= CARD_MIN_MARGIN):
            return None
        context = (context if context and second.text in context
                   else "\n".join(shown_text(u.source["kind"], u.text) for u in (unit, second)))
    src = unit.source
    return Answer(text=shown_text(src["kind"], unit.text), context=context, kind=CARD_KINDS[src["kind"]],
                  title=src.get("title", ""), url=safe_link(src["url"], files_base_url),
                  heading_path=list(src.get("heading_path", []) or []), evidence_id=src.get("id", ""),
                  confidence=judgement.confidence)
