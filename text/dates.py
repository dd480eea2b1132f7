"""Dates as search tokens: "5. Februar 2025", "February 5, 2025", "05.02.2025" and "2025-02-05" all
become ``2025-02-05`` (and the year-less ``--02-05``), so a question meets a page whatever the format.

Tokens go into the lemma view of evidence and into the lemmas of a query.
"""
from __future__ import annotations

import re

MONTHS = {
    # English
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
    # German
    "januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "mai": 5, "juni": 6, "juli": 7,
    "oktober": 10, "okt": 10, "dezember": 12, "dez": 12,
    # Spanish
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
    "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
}
_MONTH = "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True))
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_WORD = re.compile(r"\w+")
NUMERIC_PATTERNS = (  # the month as a number
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]?\d)-(?P<day>[0-3]?\d)\b"),
    re.compile(r"\b(?P<day>[0-3]?\d)\.(?P<month>[01]?\d)\.(?P<year>(?:19|20)\d\d)\b"),
)
NAMED_PATTERNS = (  # the month by its name
    re.compile(rf"\b(?P<day>[0-3]?\d)(?:\.|st|nd|rd|th)?\s+(?:de\s+)?(?P<mname>{_MONTH})\.?(?:\s+(?:de\s+)?{_YEAR})?\b",
               re.IGNORECASE),
    re.compile(rf"\b(?P<mname>{_MONTH})\.?\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
)


def _dates(text: str, words: set[str] | None = None) -> list[tuple[str, list[str]]]:
    """Each date the text writes: as written, and its ISO tokens (full, then year-less). ``words``: the text's
    lower-cased words when the caller has them; without a month name among them, the patterns that name a month
    are not run (the one opening with a month's name is most of the time a long text takes)."""
    found: list[tuple[str, list[str]]] = []
    named = words is None or not MONTHS.keys().isdisjoint(words)
    for pattern in (*NUMERIC_PATTERNS, *NAMED_PATTERNS) if named else NUMERIC_PATTERNS:
        for m in pattern.finditer(text):
            parts = m.groupdict()
            month = MONTHS[parts["mname"].lower()] if parts.get("mname") else int(parts["month"])
            day = int(parts["day"])
            if not (1 <= month <= 12 and 1 <= day <= 31):
                continue
            tokens = [f"--{month:02d}-{day:02d}"]
            if parts.get("year"):
                tokens.insert(0, f"{parts['year']}-{month:02d}-{day:02d}")
            found.append((m.group(0), tokens))
    return found


def date_tokens(text: str, words: set[str] | None = None) -> list[str]:
    """ISO tokens for every date in the text, full (2025-02-05) and year-less (--02-05), in order, once each
    (``words``: the text's lower-cased words, if known, as ``_dates`` reads them)."""
    found: list[str] = []
    for _, tokens in _dates(text, words):
        found += [t for t in tokens if t not in found]
    return found


def date_words(text: str) -> dict[str, list[str]]:
    """Each lower-cased word a date of the text is written with ("5", "februar", "2025" of "5. Februar 2025") ->
    that date's ISO tokens: a page that writes the date in another form ("2025-02-05") holds those words too."""
    out: dict[str, list[str]] = {}
    for written, tokens in _dates(text):
        for word in _WORD.findall(written.lower()):
            out.setdefault(word, [])
            out[word] += [t for t in tokens if t not in out[word]]
    return out
