"""Acronyms a text defines: "Incident Commander (IC)", "RTO (recovery time objective)", a glossary row; and the
acronyms a question names (``question_acronyms``).

``definitions`` finds the two ways prose defines an acronym, the long form before the parenthesis or after it;
``cell_definition`` reads a glossary table's row, the acronym in one cell and its meaning starting the next. Both
accept a long form only as Schwartz & Hearst (2003) do: each letter of the acronym is found in it, in order,
the first one starting a word. A long form is cut after the word holding the acronym's last letter ("Platform
Configuration Register of a TPM" gives "Platform Configuration Register").

Written here because the one port of the algorithm on the package index (``abbreviations``) configures the root
logger when imported, reads only the long form before the parenthesis, and keeps what follows the last letter.
"""
from __future__ import annotations

import re

# An acronym as written: a letter, then letters or digits, two of them capitals at least ("IC", "fTPM", "eAU").
MAX_ACRONYM_CHARS = 10  # longer capitals are a shouted word or a code, not an acronym
_ACRONYM = re.compile(rf"[A-Za-z][A-Za-z0-9]{{1,{MAX_ACRONYM_CHARS - 1}}}")
# Schwartz & Hearst's window: a long form has at most min(|A| + 5, 2|A|) words.
EXTRA_WORDS = 5
MAX_LONG_WORDS = 8  # beyond this a "long form" is a sentence that happens to hold the letters
# A one-word long form is this many times the acronym's length at least: "Betriebsrat" for BR is a word the
# letters abbreviate, "Next" for NX a word that happens to hold them.
MIN_ONE_WORD_RATIO = 3
_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?![\w-])")  # "SEV-2" names a level, not the acronym SEV
# A question names a few acronyms; a pasted log line of capitals would otherwise ask two searches for each word.
MAX_ACRONYMS = 8
SEPARATOR = " = "  # between an acronym and its long form in the index's ``defines`` keyword ("IC = Incident ...")
_PARENTHESIS = re.compile(r"\(([^()]{1,120})\)")
_CELL_END = re.compile(r"[:;(,.]")
_CLAUSE_END = re.compile(r"[:;.!?](?:\s|$)")  # a long form before its parenthesis does not reach back past these  # a glossary cell's meaning ends its name at the first colon, comma, ...


def is_acronym(word: str) -> bool:
    """A word shaped like an acronym: letters or digits, starting with a letter, two capitals at least."""
    return bool(_ACRONYM.fullmatch(word)) and sum(c.isupper() for c in word) >= 2


def question_acronyms(text: str) -> list[str]:
    """The acronym-shaped words of ``text`` as written, each once, in order: the first ``MAX_ACRONYMS``."""
    return list(dict.fromkeys(w for w in _WORD.findall(text) if is_acronym(w)))[:MAX_ACRONYMS]


def long_form(acronym: str, candidate: str) -> str:
    """The long form of ``acronym`` at the end of ``candidate`` (Schwartz & Hearst's backward match), cut after
    the word holding its last letter; "" when the letters are not all there."""
    letters = [c.lower() for c in acronym if c.isalnum()]
    text = candidate.strip()
    pos, end = len(text) - 1, -1
    for n in range(len(letters) - 1, -1, -1):
        first = n == 0
        while pos >= 0 and (text[pos].lower() != letters[n] or (first and pos > 0 and text[pos - 1].isalnum())):
            pos -= 1
        if pos < 0:
            return ""
        if end < 0:
            end = pos
        pos -= 1
    start = text.rfind(" ", 0, pos + 2) + 1
    stop = len(text) if text.find(" ", end) < 0 else text.find(" ", end)
    found = text[start:stop].strip(" -:,")
    words = found.split()
    if not words or len(words) > MAX_LONG_WORDS or acronym.lower() in (w.lower() for w in words):
        return ""
    if len(words) == 1 and len(found) < MIN_ONE_WORD_RATIO * len(acronym):
        return ""
    return found


def keyword(acronym: str, long: str) -> str:
    """A definition as the index stores it: the acronym as written, ``SEPARATOR``, the long form."""
    return f"{acronym}{SEPARATOR}{long}"


def defined_acronym(stored: str) -> str:
    """The acronym of a definition as the index stores it (``keyword``): "IC = Incident Commander" gives "IC"."""
    return stored.partition(SEPARATOR)[0]


def _window(before: str, acronym: str) -> str:
    """The words a long form before "(IC)" may take: Schwartz & Hearst's window, within its clause."""
    clause = _CLAUSE_END.split(before)[-1]
    return " ".join(clause.split()[-min(len(acronym) + EXTRA_WORDS, 2 * len(acronym)):])


def definitions(text: str) -> list[tuple[str, str]]:
    """The (acronym, long form) pairs ``text`` defines in parentheses, in order of appearance."""
    found: list[tuple[str, str]] = []
    for match in _PARENTHESIS.finditer(text):
        inside = match.group(1).strip()
        before = text[:match.start()].split()
        if is_acronym(inside):  # "Incident Commander (IC)"
            pair = (inside, long_form(inside, _window(text[:match.start()], inside)))
        elif before and is_acronym(before[-1].strip(",;:")):  # "RTO (recovery time objective)"
            acronym = before[-1].strip(",;:")
            meaning = long_form(acronym, inside)
            pair = (acronym, meaning if inside.lower().startswith(meaning.lower()) else "")
        else:
            continue
        if pair[1] and pair not in found:
            found.append(pair)
    return found


def cell_definition(name: str, meaning: str) -> str:
    """The long form a glossary row gives for the acronym in cell ``name`` when the next cell, ``meaning``,
    starts with it ("PCR" | "Platform Configuration Register of a TPM"); "" when it does not."""
    name = name.strip()
    if not is_acronym(name):
        return ""
    head = _CELL_END.split(meaning.strip(), maxsplit=1)[0]
    words = head.split()[:min(len(name) + EXTRA_WORDS, 2 * len(name))]
    if not words:
        return ""
    found = long_form(name, " ".join(words))
    return found if " ".join(words).lower().startswith(found.lower()) and found else ""
