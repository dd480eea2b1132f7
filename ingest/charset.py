"""Bytes to text for the sources that read markup or JSON, with every guess said.

``decode_markup`` reads a page by the first of: the form of its bytes (a byte-order mark, or UTF-16 without
one, told by NUL bytes at only even or only odd offsets); strict UTF-8; the charset it declares
(``<meta charset>``, ``http-equiv``, an XML declaration); then guesses: bytes that are mostly UTF-8 with a
few broken sequences are read as UTF-8 with those replaced, anything else by detection (``charset_normalizer``,
Windows-1252 when detection cannot tell it from its best guess). Strict UTF-8 comes before the declared
charset because valid UTF-8 is almost never anything else, while declarations are often wrong. A guess comes
with a note saying what was read how and why, which the source records naming the file. ``decode_json`` never
guesses: JSON is UTF-8 (RFC 8259), or UTF-16/32 by the form of its bytes; anything else raises
UnicodeDecodeError.
"""
from __future__ import annotations

import codecs

import charset_normalizer
from bs4.dammit import EncodingDetector

__all__ = ["text_encoding", "decode_json", "decode_markup"]

# Byte-order marks and the codec each starts; UTF-32's before UTF-16's, whose marks begin theirs.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# Bytes looked at to tell UTF-16 without a byte-order mark: a few lines of markup show the pattern.
_WIDE_SNIFF_BYTES = 4_096
# Share of the code units in the sniffed bytes that must be ASCII (a NUL byte beside the character) for
# UTF-16 without a mark: markup's tags and spaces alone make far more.
_MIN_ASCII_UNIT_SHARE = 0.1
# Most NUL bytes the other side may hold, per NUL byte on the ASCII side: a few characters such as U+0100 or
# an emoji's second half put one there; binary data's NULs fall on both sides alike.
_MAX_OFF_SIDE_NULS = 0.1
# Most control characters (tab, line and page breaks aside) UTF-16 text may hold: text has almost none, binary
# data read as UTF-16 many.
_MAX_CONTROL_SHARE = 0.02
_CONTROLS = {c for c in range(32) if chr(c) not in "\t\n\r\f"}
# Declared charsets browsers read as Windows-1252, its superset (curly quotes, dashes, the euro sign).
_WESTERN_ALIASES = {"iso8859-1", "ascii"}
_WESTERN = "cp1252"
_ASCII = bytes(range(128))
_REPLACEMENT = "\ufffd"


def text_encoding(data: bytes) -> str:
    """The codec the form of ``data`` shows, "" when it shows none: a byte-order mark's, or ``utf-16-le`` /
    ``utf-16-be`` for UTF-16 without one (NUL bytes almost all at odd or all at even offsets, bytes that read as
    UTF-16, and almost no control characters in what they read as)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    head = data[:_WIDE_SNIFF_BYTES]
    units = len(head) // 2
    if not units:
        return ""
    nul_even, nul_odd = head[0::2].count(0), head[1::2].count(0)
    ascii_side, off_side = max(nul_even, nul_odd), min(nul_even, nul_odd)
    if ascii_side < _MIN_ASCII_UNIT_SHARE * units or off_side > _MAX_OFF_SIDE_NULS * ascii_side:
        return ""
    codec = "utf-16-le" if nul_odd > nul_even else "utf-16-be"
    try:
        text = codecs.getincrementaldecoder(codec)("strict").decode(head, final=False)
    except UnicodeDecodeError:
        return ""
    controls = sum(1 for char in text if ord(char) in _CONTROLS)
    return codec if controls <= _MAX_CONTROL_SHARE * len(text) else ""


def decode_json(data: bytes) -> str:
    """JSON bytes as text: by a byte-order mark, as UTF-16 by its form, else as strict UTF-8 (raises
    UnicodeDecodeError)."""
    return data.decode(text_encoding(data) or "utf-8")


def decode_markup(data: bytes, is_html: bool = True) -> tuple[str, str]:
    """A page's text, and a note when its encoding was guessed ("" when its bytes or its declaration said)."""
    form = text_encoding(data)
    if form.startswith(("utf-16", "utf-32")):
        how = "" if form in ("utf-16", "utf-32") else \
            f"it has no byte-order mark; read as {form.upper()}, told by the pattern of its NUL bytes, its text kept"
        try:
            return data.decode(form), how
        except UnicodeDecodeError as exc:
            return data.decode(form, "replace"), (f"some of its bytes are not {form.upper()} ({_where(exc)}): "
                                                  f"those replaced by '{_REPLACEMENT}', the rest kept")
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError as exc:
        fault = f"its bytes are not valid UTF-8 ({_where(exc)})"
    data = data.removeprefix(codecs.BOM_UTF8)  # a mark that promised UTF-8 wrongly: no text of its own
    declared = EncodingDetector.find_declared_encoding(data, is_html=is_html)
    codec = _codec(declared)
    if codec and codec != "utf-8" and not codec.startswith(("utf-16", "utf-32")):
        for reading in ([_WESTERN, codec] if codec in _WESTERN_ALIASES else [codec]):
            try:
                return data.decode(reading), ""
            except UnicodeDecodeError:
                pass
    if not declared:
        why = f"it declares no charset and {fault}"
    elif codec == "utf-8":
        why = f"it declares UTF-8 but {fault}"
    else:
        why = f"its declared charset {declared!r} does not fit its bytes and {fault}"
    text, how = _guess(data)
    return text, f"{why}; read as {how} and kept, a guess: its accented or non-Latin letters may be wrong"


def _codec(name: str | None) -> str:
    """Python's name for a charset's codec ("" for none, or one Python does not know)."""
    try:
        return codecs.lookup(name).name if name else ""
    except LookupError:
        return ""


def _where(exc: UnicodeDecodeError) -> str:
    return f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start:,}"


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _guess(data: bytes) -> tuple[str, str]:
    """The text the bytes most likely hold, and how it was read."""
    text = data.decode("utf-8", "replace")
    broken = text.count(_REPLACEMENT) - data.count(_REPLACEMENT.encode())
    ascii_chars = len(data) - len(data.translate(None, _ASCII))
    utf8_chars = len(text) - ascii_chars - broken  # characters of two to four bytes that did read as UTF-8
    if utf8_chars > broken:
        return text, f"UTF-8 with its {broken:,} broken byte sequence(s) replaced by '{_REPLACEMENT}'"
    # Detection drops candidates early on short texts (German read as Big5): Windows-1252 is always weighed, and
    # wins a tie, being what most pages that are not UTF-8 and declare nothing are written in.
    matches = [m for m in (*charset_normalizer.from_bytes(data), *charset_normalizer.from_bytes(
        data, cp_isolation=[_WESTERN])) if not m.encoding.startswith(("utf_16", "utf_32"))]
    for match in sorted(matches, key=lambda m: (m.chaos, -m.coherence, _codec(m.encoding) != _WESTERN)):
        text = _strict(data, match.encoding)
        if text is not None:
            return text, "Windows-1252" if _codec(match.encoding) == _WESTERN else match.encoding
    western = _strict(data, _WESTERN)
    if western is not None:
        return western, "Windows-1252"
    return data.decode("latin-1"), "Latin-1"
