"""What a search box's syntax asks beyond words: "an exact phrase" in quotes, and -word or -"a phrase" for results
without it, as Confluence's search and most web search boxes read them.

A phrase keeps its words in the question, searched, weighed and highlighted as any other, and is also required:
only evidence whose ``context`` (its text with its page's title, its headings and its neighbours) holds the words
in that order is searched. An excluded word or phrase leaves the question, and evidence whose ``context`` holds it
is not searched. Quotes are the straight ones and the pairs keyboards type in their place ("smart" quotes: “…” in
English, „…“ in German); a quote left open is a character of the question. A minus counts at a word's start,
before a letter or a quote: "E-Bike", "4.1.2-Bericht", "-20 °C" and a dash between words stay as written.

Written here, not taken from a query parser: OpenSearch's ``simple_query_string`` reads the same syntax but
searches the phrase's words only as that phrase, and ``+``, ``|``, ``*`` and ``~`` as operators, which a question
typed in words writes ("C++", "4~5 days"); a search's retrievers, its translations and its verdict need the words
on their own and the phrase as a filter beside them.

May import nothing of the project.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# A phrase in quotes, a minus before it when excluded: straight, English and German quotes, each with its own closer
_QUOTED = re.compile(r'(?<![\w-])(-?)(?:"([^"]*)"|“([^“”]*)”|„([^„“”]*)[“”])')
_EXCLUDED_WORD = re.compile(r"(?<!\S)-([^\W\d_][\w'’.-]*)")  # -draft, -Entwurf; not -20 or a dash between words
_SPACE = re.compile(r"\s+")
PHRASES_NAMED = 3  # phrases a warning names; more are counted: a warning is a line of the page, not the question


@dataclass(frozen=True)
class Syntax:
    """A question as typed, read: the ``text`` to search (a phrase's words kept, excluded ones left out), the
    ``phrases`` required and the words and phrases ``excluded``."""

    text: str
    phrases: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()

    @property
    def asks_more(self) -> bool:
        """Whether the question asks a phrase or an exclusion: else it is searched as typed."""
        return bool(self.phrases or self.excluded)

    def unheld(self) -> str:
        """The warning when no page holds the phrases as written, naming the first ``PHRASES_NAMED``."""
        named = ", ".join(f"“{phrase}”" for phrase in self.phrases[:PHRASES_NAMED])
        more = len(self.phrases) - PHRASES_NAMED
        return (f"no page holds {named}{f' and {more} more phrases' if more > 0 else ''} as written; showing results "
                "without requiring it")

    def filters(self, phrases: bool = True) -> dict[str, list[str]]:
        """The request filters that ask it (``search.retrievers.request_filters``); without the phrases on request."""
        return {"phrases": list(self.phrases) if phrases else [], "excluded": list(self.excluded)}


def read_syntax(typed: str) -> Syntax:
    """The phrases and exclusions of ``typed``, and the text left to search."""
    phrases: list[str] = []
    excluded: list[str] = []

    def quoted(match: re.Match) -> str:
        minus, *bodies = match.groups()
        phrase = _SPACE.sub(" ", next(body for body in bodies if body is not None)).strip()
        if not phrase:
            return match.group(0) if not minus else " "
        if minus:
            excluded.append(phrase)
            return " "
        phrases.append(phrase)
        return f" {phrase} "

    def minus_word(match: re.Match) -> str:
        excluded.append(match.group(1))
        return " "

    pieces, at = [], 0
    for match in _QUOTED.finditer(typed):  # a minus inside quotes is the phrase's own
        pieces += [_EXCLUDED_WORD.sub(minus_word, typed[at:match.start()]), quoted(match)]
        at = match.end()
    text = "".join([*pieces, _EXCLUDED_WORD.sub(minus_word, typed[at:])])
    return Syntax(_SPACE.sub(" ", text).strip(), tuple(dict.fromkeys(phrases)), tuple(dict.fromkeys(excluded)))
