"""Lines joined where a word was broken at the line end: the one rule for PDF lines, page texts and
sentence splitting.

A line that ends in a soft hyphen always continues the word. A line that ends in a letter and a
hyphen, followed by a line that starts with

* a conjunction ("Fach-" + "und Führungskräfte"): the hyphen stands for a word part left out,
  so it stays and a space follows;
* a lowercase letter: the hyphen broke the word ("excep-" + "tion" -> "exception"), unless the
  document writes the word with a hyphen and never without ("e-" + "mail" where it writes "e-mail");
* a capital or a digit: the hyphen is a real one ("Baden-" + "Württemberg").

Any other two lines are joined with a space.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Set

__all__ = ["vocabulary", "join_line", "join_lines", "dehyphenate"]

_SOFT_HYPHEN = "\u00ad"
_WORD = re.compile(r"[^\W_]+(?:[-‐][^\W_]+)*")
_BROKEN_AT_END = re.compile(r"[^\W\d_][-‐]$")
_FIRST_WORD = re.compile(r"[^\W_]+")
# Words after which a hyphen at the line end marks a word part left out ("Fach- und Führungskräfte").
_CONJUNCTIONS = frozenset({"und", "oder", "bzw", "sowie", "als", "bis", "wie"})
_LINE_END_BREAK = re.compile(r"([^\W\d_][-‐\u00ad])[ \t]*\n[ \t]*(?=[^\W_])")


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """The lowercased words of some texts, hyphenated compounds whole: what a document writes."""
    return frozenset(w.lower() for text in texts for w in _WORD.findall(text))


def join_line(left: str, right: str, words: Set[str] = frozenset()) -> str:
    """Two consecutive lines as one (see the module docstring); ``words``: the document's ``vocabulary``."""
    if not right:
        return left
    if left.endswith(_SOFT_HYPHEN):
        return left[:-1] + right
    if not (_BROKEN_AT_END.search(left) and right[:1].isalnum()):
        return f"{left} {right}"
    first = _FIRST_WORD.match(right)
    head = first.group(0) if first else ""
    if head.lower() in _CONJUNCTIONS:
        return f"{left} {right}"
    if not right[:1].islower():
        return left + right
    stem = re.search(r"[^\W\d_]+(?=[-‐]$)", left).group(0)
    hyphenated, closed = f"{stem}-{head}".lower(), f"{stem}{head}".lower()
    if hyphenated in words and closed not in words:
        return left + right
    return left[:-1] + right


def join_lines(lines: Iterable[str], words: Set[str] = frozenset()) -> str:
    """Lines (stripped) joined into one text by ``join_line``."""
    out = ""
    for line in lines:
        line = line.strip()
        out = join_line(out, line, words) if out else line
    return out


def dehyphenate(text: str) -> str:
    """The words of ``text`` broken at a line end joined again; its own words are the vocabulary."""
    words = vocabulary([text])
    return _LINE_END_BREAK.sub(lambda m: _joined(m, text, words), text)


def _joined(match: re.Match, text: str, words: Set[str]) -> str:
    left = match.group(1)
    right = _FIRST_WORD.match(text, match.end())
    joined = join_line(left, right.group(0), words)
    return joined[:-len(right.group(0))]
