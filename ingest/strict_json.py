"""JSON read without guessing: what Python's reader would settle silently, or fail on with its own words, is
refused with a sentence.

``load_json`` refuses, as ``UnreadableJson`` whose message is the reason: bytes that are not UTF-8 (or UTF-16/32
by their form, ``charset.decode_json``); a key given twice in one object (readers differ on which value holds,
Python's keeps the last: a page whose first ``restrictions`` names a group and whose last is empty would be read
as public); a number of more digits than Python reads into an integer; a lone surrogate escape (``"\\ud800"``),
half of a character pair, which no text can store; invalid JSON and JSON nested deeper than the reader recurses.
"""
from __future__ import annotations

import json
import re
import sys

from ingest.charset import decode_json

__all__ = ["UnreadableJson", "load_json"]

_QUOTED_CHARS = 200  # of a parser's message: enough to place the fault, short enough for a job record
_SHOWN_KEY_CHARS = 60  # of a key named in a reason: enough to recognise it
_SURROGATE = re.compile("[\ud800-\udfff]")  # left in a text only by an escape without its other half


class UnreadableJson(ValueError):
    """JSON that is not read; the message is the reason, to follow the file's name."""


class _Refused(Exception):
    """Raised inside the reader's hooks (not a ValueError, which the reader would take for its own)."""


def load_json(data: bytes):
    """The JSON value ``data`` holds; UnreadableJson with the reason when it is not read (module docstring)."""
    try:
        text = decode_json(data)
    except UnicodeDecodeError as exc:
        raise UnreadableJson(f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start:,}); "
                             "JSON must be UTF-8") from None
    try:
        value = json.loads(text, object_pairs_hook=_object, parse_int=_integer)
        _check_texts(value, "")
    except _Refused as exc:
        raise UnreadableJson(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise UnreadableJson(f"invalid JSON: {str(exc)[:_QUOTED_CHARS]}") from None
    except RecursionError:
        raise UnreadableJson(f"JSON nested too deep to read (over {sys.getrecursionlimit():,} levels)") from None
    return value


def _object(pairs: list[tuple[str, object]]) -> dict:
    """One JSON object, refused when a key repeats or a key or a text under it holds a lone surrogate."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"the key {_shown(key)} appears twice in one object, so which of its values holds is "
                           "unclear (JSON readers differ: some keep the first, some the last) and not guessed")
        _check_texts(key, key)
        _check_texts(value, key)
        out[key] = value
    return out


def _check_texts(value, key: str) -> None:
    """Refuse a lone surrogate in a text ``value`` or in the texts of a list (nested lists too; the objects in it
    were checked when they were read), walked without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                where = f"under the key {_shown(key)}" if key else "at the top"
                raise _Refused(f"a text {where} holds the lone surrogate escape \\u{ord(found.group()):04x}, half of "
                               "a character pair without its other half: no character, and no text can store it")
        elif isinstance(item, list):
            pending.extend(item)


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        raise _Refused(f"it holds a number of {len(digits.lstrip('-')):,} digits, more than can be read "
                       f"({sys.get_int_max_str_digits():,} at most)") from None


def _shown(key: str) -> str:
    return repr(key if len(key) <= _SHOWN_KEY_CHARS else f"{key[:_SHOWN_KEY_CHARS]}…")
