"""The answer card: the one piece of evidence that answers the question, shown above the results, without an LLM.

Only for an answer whose verdict is strong (``search.verdict``): a wrong card costs more than none. The card is a
unit that holds its answer whole, written beside what it answers: a table row (its header names what each value
is) or a definition (its term and its meaning). A sentence, list item or page fact holding the question's words
restates the question as often as it answers it (the sentence beside the answer, "Download your backup codes."
for "how many backup codes"), so those are never cards. Of the first page's best evidence, the unit holding the
most of the question's content (``search.verdict.coverage``, read with the page's title and the unit's headings,
then of what those leave open) wins; the better ranked evidence first on a tie. The card is shown when that unit
holds at least ``CARD_MIN_COVERAGE`` of the question, its own words ``CARD_MIN_OWN`` of what title and headings leave
open, and it is short enough to read at a glance.

A table row shows as its header and values ("Machine: Orbis EdgeBox E3 · BIOS: E3.24"), a definition as its term
and meaning.

May import ``core`` (links), ``ingest.evidence`` (the kinds), ``search.grouping``, ``search.verdict`` and ``text``.
"""
from __future__ import annotations

import re

from core.urls import safe_link
from ingest import evidence as kinds
from search.grouping import Group
from search.schema import Answer
from search.verdict import STRONG, Judgement, coverage

# The unit must hold this share of the question's weighted content terms: below it the row or definition is the
# question's neighbour on the same page (another machine, another term) too often for a card.
CARD_MIN_COVERAGE = 0.85
# The unit's own words must hold this share of what the title and headings leave open: a unit that only sits under
# the title's words answers nothing (and a question its title holds whole has no unit telling the answer apart).
CARD_MIN_OWN = 0.5
CARD_MAX_CHARS = 400  # about five lines of the card: longer is a paragraph, not an answer
CARD_EVIDENCE = 5  # the first page's evidence searched for the unit: the page's best; lower ones rarely answer
# Card kinds by evidence kind: the units that hold their answer beside what it answers.
CARD_KINDS = {kinds.TABLE_ROW: "table_row", kinds.TERM: "definition"}
_ROW_PREFIX = re.compile(r"^Row \d+ in Table \d+:\s*")  # how ``ingest.tables`` opens a row's text
_ROW_PAIR = re.compile(r"^(.+?) is (.+)$", re.DOTALL)  # "Machine is Orbis EdgeBox E3"


def row_text(text: str) -> str:
    """A table row as its header and values: "Row 3 in Table 1: Machine is X, and BIOS is Y" ->
    "Machine: X · BIOS: Y"."""
    pairs = _ROW_PREFIX.sub("", text).rstrip(".").split(", and ")
    shown = []
    for pair in pairs:
        named = _ROW_PAIR.match(pair)
        shown.append(f"{named.group(1)}: {named.group(2)}" if named else pair)
    return " · ".join(shown)


def shown_text(kind: str, unit: str) -> str:
    return row_text(unit) if kind == kinds.TABLE_ROW else " ".join(unit.split())


def best_unit(found: Group, terms: list[tuple[float, set[str]]]) -> tuple[tuple[float, float], dict] | None:
    """The evidence of a card kind among ``found``'s first that holds the most of the question, as ((its coverage
    with title and headings, its own words' coverage of what those leave open), the evidence); None without one."""
    best: tuple[tuple[float, float], dict] | None = None
    for item in found.items[:CARD_EVIDENCE]:
        src = item["_source"]
        unit = src.get("text", "")
        if src.get("kind", "") not in CARD_KINDS or len(unit) > CARD_MAX_CHARS:
            continue
        around = " ".join([src.get("title", ""), *(src.get("heading_path", []) or [])])
        rest = [term for term in terms if coverage([term], around) < 1.0]  # what title and headings leave open
        held = (coverage(terms, f"{around}\n{unit}"), coverage(rest, unit) if rest else 0.0)
        if best is None or held > best[0]:
            best = (held, src)
    return best


def answer_card(found: Group | None, judgement: Judgement, terms: list[tuple[float, set[str]]],
                files_base_url: str = "") -> Answer | None:
    """The card of the first result ``found``, or None when its verdict is not strong or none of its evidence
    of a card kind holds enough of the question."""
    if found is None or judgement.verdict != STRONG:
        return None
    best = best_unit(found, terms)
    if best is None or best[0][0] < CARD_MIN_COVERAGE or best[0][1] < CARD_MIN_OWN:
        return None
    _, src = best
    return Answer(text=shown_text(src["kind"], src["text"]), kind=CARD_KINDS[src["kind"]],
                  title=src.get("title", ""), url=safe_link(src["url"], files_base_url),
                  heading_path=list(src.get("heading_path", []) or []), evidence_id=src.get("id", ""),
                  confidence=judgement.confidence)
